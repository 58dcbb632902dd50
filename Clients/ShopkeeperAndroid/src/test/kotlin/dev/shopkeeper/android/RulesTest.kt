package dev.shopkeeper.android

import dev.shopkeeper.android.core.Json
import dev.shopkeeper.android.core.JsonObject
import dev.shopkeeper.android.core.RetryPolicy
import dev.shopkeeper.android.core.ShopkeeperApi
import dev.shopkeeper.android.core.ShopkeeperException
import dev.shopkeeper.android.models.CustomerInfo
import dev.shopkeeper.android.models.PlayPurchaseKind
import dev.shopkeeper.android.models.Problem
import dev.shopkeeper.android.models.ProofBodies
import dev.shopkeeper.android.models.PurchaseProof
import dev.shopkeeper.android.models.StorePlatform
import dev.shopkeeper.android.models.TransactionOutcome
import dev.shopkeeper.android.purchases.DeviceTransaction
import dev.shopkeeper.android.purchases.KeptIds
import dev.shopkeeper.android.purchases.LocalState
import dev.shopkeeper.android.purchases.RestoreResult
import dev.shopkeeper.android.purchases.Shopkeeper
import dev.shopkeeper.android.purchases.SubmissionVerdict
import dev.shopkeeper.android.support.AppAccountToken
import dev.shopkeeper.android.support.InstallIds
import java.util.Locale
import java.util.UUID
import org.junit.Assert.assertEquals
import org.junit.Assert.assertFalse
import org.junit.Assert.assertNull
import org.junit.Assert.assertTrue
import org.junit.Test

/** The rules the purchase flow and the client live by, one table each (ShopkeeperKit's RulesTests). */
class RulesTest {
    @Test
    fun onlyTimeoutsTooManyRequestsAndServerFailuresAreRetried() {
        val table = listOf(
            200 to false, 304 to false, 400 to false, 401 to false, 403 to false, 404 to false, 409 to false,
            422 to false, 408 to true, 429 to true, 500 to true, 502 to true, 503 to true, 504 to true
        )
        for ((status, retried) in table) assertEquals("status $status", retried, RetryPolicy.isRetryable(status))
        fun server(status: Int) = ShopkeeperException.Server(Problem("about:blank", "t", status, "d", "c"), null)
        assertTrue(ShopkeeperException.Transport("connection refused").isRetryable)
        assertTrue(server(503).isRetryable)
        assertFalse(server(422).isRetryable)
        assertFalse(ShopkeeperException.Decoding("x").isRetryable)
        assertEquals("c", server(409).code)
        assertNull(ShopkeeperException.Transport("x").code)
    }

    @Test
    fun backoffDoublesIsCappedAndRetryAfterWins() {
        val policy = RetryPolicy(maxAttempts = 5, baseDelaySeconds = 1.0, maxDelaySeconds = 6.0)
        assertEquals(1.0, policy.delaySeconds(1, null, unit = 1.0), 0.0)
        assertEquals(2.0, policy.delaySeconds(2, null, unit = 1.0), 0.0)
        assertEquals(2.0, policy.delaySeconds(3, null, unit = 0.0), 0.0) // 4 with equal jitter: 2..4
        assertEquals(6.0, policy.delaySeconds(9, null, unit = 1.0), 0.0)
        assertEquals(3.0, policy.delaySeconds(1, 3.0, unit = 0.0), 0.0)
        assertEquals(6.0, policy.delaySeconds(1, 60.0, unit = 0.0), 0.0)
        assertEquals(7.0, RetryPolicy.retryAfterSeconds(" 7 ") ?: -1.0, 0.0)
        assertNull(RetryPolicy.retryAfterSeconds("Wed, 21 Oct 2026 07:28:00 GMT"))
        assertNull(RetryPolicy.retryAfterSeconds("-1"))
        assertNull(RetryPolicy.retryAfterSeconds(null))
    }

    @Test
    fun aPurchaseIsFinishedOnlyOnAVerdictThatCannotChange() {
        val refused = listOf(
            422 to "invalid_purchase_token", 422 to "wrong_product", 422 to "malformed_proof", 422 to "purchase_canceled",
            403 to "obfuscated_account_id_mismatch", 403 to "device_limit_reached", 403 to "sandbox_not_accepted",
            409 to "transaction_belongs_to_another_app", 409 to "already_owned_by_other_customer"
        )
        for ((status, code) in refused) assertEquals(SubmissionVerdict.Refused(code), SubmissionVerdict.forFailure(status, code))
        val kept = listOf(
            503 to "store_unavailable", 503 to "apply_pending", 503 to "database_unavailable", 500 to "internal_error",
            502 to "upstream_unavailable", 504 to "upstream_timeout", 429 to "rate_limited", 422 to "store_not_configured",
            422 to "store_credentials_rejected", 422 to "purchase_pending", 422 to "validation_failed",
            401 to "customer_token_expired", 403 to "customer_token_mismatch", 401 to "invalid_api_key",
            400 to "malformed_json", 413 to "body_too_large", 408 to "request_timeout"
        )
        for ((status, code) in kept) assertEquals("$status $code", SubmissionVerdict.Keep, SubmissionVerdict.forFailure(status, code))
        assertEquals(SubmissionVerdict.Keep, SubmissionVerdict.forError(ShopkeeperException.Transport("connection refused")))
    }

    @Test
    fun keptPurchasesBackOffFromFiveSecondsToAnHour() {
        assertEquals(5L, LocalState.backoffSeconds(1))
        assertEquals(10L, LocalState.backoffSeconds(2))
        assertEquals(3600L, LocalState.backoffSeconds(30))
        assertEquals(3600L, LocalState.backoffSeconds(Int.MAX_VALUE))
    }

    /** The server's derivation, checked against Python's `uuid.uuid5(UUID('6f9e2b43-...'), name)`. */
    @Test
    fun theAccountTokenIsTheServersNameBasedUuid() {
        assertEquals("fdec7792-6418-547d-9ed4-66d9e1df94d9", AppAccountToken.obfuscatedAccountId("alice"))
        assertEquals("b27cc2b1-3e24-5be4-9be0-05d804c57624", AppAccountToken.uuid("user_81f3c2").toString())
        assertTrue(AppAccountToken.obfuscatedAccountId("x".repeat(256)).length <= 64)
    }

    @Test
    fun aFoundPurchaseIsSentForTheUserWhoseTokenItCarries() {
        val state = LocalState.fresh(InstallIds.make()).using("alice").using("bob")
        val alices = DeviceTransaction(
            "1", "p", PurchaseProof.PlayPurchase("t", "p", PlayPurchaseKind.PRODUCT), AppAccountToken.uuid("alice"), null
        )
        assertEquals("alice", state.buyer(alices))
        assertEquals("bob", state.buyer(alices.copy(appAccountToken = UUID.randomUUID())))
        assertEquals("bob", state.buyer(alices.copy(appAccountToken = null)))
    }

    @Test
    fun theIdStoreIsTheTruthForTheIds() {
        val kept = InstallIds("anon_00000000-0000-4000-8000-000000000001", "device-1")
        val other = InstallIds("anon_00000000-0000-4000-8000-000000000002", "device-2")
        val made = InstallIds("anon_00000000-0000-4000-8000-000000000003", "device-3")
        // Data cleared, ids kept: the same person.
        var opening = LocalState.opening(null, KeptIds.Kept(kept)) { made }
        assertEquals(kept, opening.state.ids)
        assertTrue(opening.saveState)
        assertNull(opening.keep)
        // Ids only in the state so far: they move to the id store.
        opening = LocalState.opening(LocalState.fresh(other), KeptIds.Empty) { made }
        assertEquals(other, opening.keep)
        assertFalse(opening.saveState)
        // A first start.
        opening = LocalState.opening(null, KeptIds.Empty) { made }
        assertEquals(made, opening.state.ids)
        assertEquals(made, opening.keep)
        // Both, differing: the kept ids win; a logged-in user stays, and the old anonymous id stays known.
        opening = LocalState.opening(LocalState.fresh(other).using("carol"), KeptIds.Kept(kept)) { made }
        assertEquals(kept, opening.state.ids)
        assertEquals("carol", opening.state.appUserId)
        assertTrue(other.anonymousId in opening.state.knownUserIds)
        opening = LocalState.opening(LocalState.fresh(other), KeptIds.Kept(kept)) { made }
        assertEquals(kept.anonymousId, opening.state.appUserId)
        // The id store unavailable: the state's ids, or no opening at all.
        val unavailable = KeptIds.Unavailable(ShopkeeperException.Storage("locked"))
        assertEquals(other, LocalState.opening(LocalState.fresh(other), unavailable) { made }.state.ids)
        try {
            LocalState.opening(null, unavailable) { made }
            throw AssertionError("opened without ids")
        } catch (error: ShopkeeperException.Storage) {
        }
    }

    @Test
    fun anonymousIdsHaveTheReservedForm() {
        val ids = InstallIds.make()
        assertTrue(InstallIds.isAnonymousId(ids.anonymousId))
        assertFalse(InstallIds.isAnonymousId("anon_alice"))
        assertFalse(InstallIds.isAnonymousId("alice"))
    }

    @Test
    fun theStateFileKeepsEverythingItHolds() {
        val proof = PurchaseProof.PlayPurchase("tok", "play_pro", PlayPurchaseKind.SUBSCRIPTION)
        val transaction = DeviceTransaction("GPA.1", "play_pro", proof, AppAccountToken.uuid("a"), null)
        val now = java.time.Instant.parse("2026-03-01T12:00:00Z")
        val state = LocalState.fresh(InstallIds.make()).using("a").copy(
            pendingPurchases = listOf(dev.shopkeeper.android.purchases.PendingPurchase(transaction, "a", now, 2, "store_unavailable", now)),
            pendingConsumes = listOf(dev.shopkeeper.android.purchases.PendingConsume("key", "a", "coins", 3)),
            deliveredProofs = mapOf("pro" to proof)
        )
        assertEquals(state, LocalState.from(JsonObject.parse(Json.write(state.toJson()))))
    }

    @Test
    fun aRestoreResultTellsRestoredFromOwnedByAnotherAccount() {
        val customer = CustomerInfo.from(JsonObject.of(Answers.customer("anon_b", listOf("p1"))))
        fun outcome(id: String, value: String) = TransactionOutcome(StorePlatform.PLAY_STORE, id, "p$id", value)
        val result = RestoreResult(
            customer,
            listOf(
                outcome("1", "granted"), outcome("2", "owned_by_other_account"), outcome("3", "already_applied"),
                outcome("4", "transferred"), outcome("5", "unknown_product"), outcome("6", "revoked")
            )
        )
        assertEquals(listOf("2"), result.ownedByOtherAccount.map { it.transactionId })
        assertEquals(listOf("1", "3", "4"), result.restored.map { it.transactionId })
        assertEquals(setOf("p1"), result.customer.activeEntitlements)
    }

    /** The bodies `docs/openapi.yaml` gives: `PurchaseRequest` flat, `RestoreRequest` with `purchase_tokens`. */
    @Test
    fun requestBodiesCarryExactlyTheProofsFields() {
        val play = PurchaseProof.PlayPurchase("opaque-token", "pro_yearly", PlayPurchaseKind.SUBSCRIPTION)
        assertEquals(
            mapOf(
                "purchase_token" to "opaque-token", "product_id" to "pro_yearly", "purchase_kind" to "subscription",
                "app_user_id" to "user_81f3c2", "device_id" to "d", "app_version" to "2.4.0"
            ),
            ProofBodies.purchase(play, "user_81f3c2", "d", "2.4.0")
        )
        assertEquals(
            mapOf("purchase_token" to "opaque-token", "product_id" to "pro_yearly", "purchase_kind" to "subscription", "app_user_id" to "a"),
            ProofBodies.purchase(play, "a", null, null)
        )
        val restore = ProofBodies.restore(
            listOf(play, PurchaseProof.SignedTransaction("jws"), PurchaseProof.PlayPurchase("t2", "coins", PlayPurchaseKind.PRODUCT)),
            "d", null
        )
        assertEquals(listOf("jws"), restore["signed_transactions"])
        assertEquals(
            listOf(play.fields(), mapOf("purchase_token" to "t2", "product_id" to "coins", "purchase_kind" to "product")),
            restore["purchase_tokens"]
        )
        assertFalse(restore.containsKey("receipt_data"))
        assertFalse(ProofBodies.restore(listOf(play), null, null).containsKey("signed_transactions"))
        assertEquals(play, PurchaseProof.from(JsonObject.of(play.fields())))
        assertEquals(
            PurchaseProof.PlayPurchase("t", "p", PlayPurchaseKind.PRODUCT),
            PurchaseProof.from(JsonObject.parse("""{"purchase_token": "t", "product_id": "p"}"""))
        )
    }

    @Test
    fun pathSegmentsAreEncoded() {
        assertEquals("a%2Fb%20c%3F%2B%23%25", ShopkeeperApi.segment("a/b c?+#%"))
        assertEquals("user_81f3c2", ShopkeeperApi.segment("user_81f3c2"))
        assertEquals("%C3%A9", ShopkeeperApi.segment("é"))
    }

    @Test
    fun theDevicesLocaleIsSentOnlyWhenTheCatalogTakesIt() {
        assertEquals("de-AT", Shopkeeper.deviceLocale(Locale.forLanguageTag("de-AT")))
        assertEquals("en", Shopkeeper.deviceLocale(Locale.ENGLISH))
        assertNull(Shopkeeper.deviceLocale(Locale.ROOT))
    }

    @Test
    fun unknownValuesAndFieldsDecode() {
        val trial = dev.shopkeeper.android.models.TrialInfo.from(
            JsonObject.parse("""{"state": "frozen_in_time", "product_id": null, "new_field": [{"x": 1}]}""")
        )
        assertEquals("frozen_in_time", trial.state)
        assertNull(trial.productId)
    }
}
