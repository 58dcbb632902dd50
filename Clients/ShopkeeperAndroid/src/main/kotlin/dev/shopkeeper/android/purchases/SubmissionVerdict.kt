package dev.shopkeeper.android.purchases

import dev.shopkeeper.android.core.RetryPolicy
import dev.shopkeeper.android.core.ShopkeeperException

/**
 * What to do with a store purchase after sending its proof: finish it only once Shopkeeper has it (`200`) or has
 * said it will never take it; otherwise keep it and send it again later. Pure, so the table is tested alone; the same
 * table as ShopkeeperKit's.
 */
sealed class SubmissionVerdict {
    /** Granted (or already granted): finish the purchase. */
    object Delivered : SubmissionVerdict()

    /** Shopkeeper will never take it (a forged or mismatched proof, another customer's purchase): finish it. */
    data class Refused(val code: String) : SubmissionVerdict()

    /** Not judged, or judged on something that can change (an outage, credentials, a token): keep it. */
    object Keep : SubmissionVerdict()

    companion object {
        /**
         * Codes that keep the purchase although their status is a `4xx`: they are about the app's configuration or
         * the request's credentials, or about a purchase that is not complete yet, not about the proof.
         */
        val RETRYABLE_CODES = setOf(
            "store_not_configured", "store_credentials_rejected", "shared_secret_mismatch", "purchase_pending",
            "validation_failed", "customer_token_required", "customer_token_invalid", "customer_token_expired",
            "customer_token_mismatch", "customer_token_unavailable", "secret_key_required", "missing_credentials",
            "invalid_api_key", "rate_limited"
        )

        /** The verdict on an error answer. */
        fun forFailure(status: Int, code: String): SubmissionVerdict {
            if (RetryPolicy.isRetryable(status) || code in RETRYABLE_CODES) return Keep
            return when {
                status == 422 || status == 403 -> Refused(code)
                status == 409 && (code == "transaction_belongs_to_another_app" || code == "already_owned_by_other_customer") ->
                    Refused(code)
                else -> Keep
            }
        }

        /** The verdict on a failed submission (no answer at all keeps it). */
        fun forError(error: ShopkeeperException): SubmissionVerdict =
            if (error is ShopkeeperException.Server) forFailure(error.problem.status, error.problem.code) else Keep
    }
}
