package dev.shopkeeper.android.core

import dev.shopkeeper.android.models.Problem

/**
 * Every failure of ShopkeeperAndroid. What matters to an app is whether trying again can help ([isRetryable]) and,
 * for the server's answers, the stable [code] (the problem document's `code`; never switch on messages).
 */
sealed class ShopkeeperException(message: String, cause: Throwable? = null) : Exception(message, cause) {
    /** The server answered with a problem document (or a status without one, as a synthesized problem). */
    class Server(val problem: Problem, val retryAfterSeconds: Double?) :
        ShopkeeperException("${problem.status} ${problem.code}: ${problem.detail}")

    /** The server could not be reached or the connection broke (no answer to judge). */
    class Transport(message: String, cause: Throwable? = null) : ShopkeeperException(message, cause)

    /** The server's answer did not decode as the document says. */
    class Decoding(message: String) : ShopkeeperException(message)

    /** The device's store failed (Play Billing, the sandbox store). */
    class DeviceStore(message: String, cause: Throwable? = null) : ShopkeeperException(message, cause)

    /** The user cancelled the purchase, or it is pending (Play's `PENDING`): nothing to send yet. */
    class PurchaseNotCompleted(val productId: String) : ShopkeeperException("the purchase of $productId did not complete")

    /** A product the catalog does not list for this build, or that cannot be bought this way. */
    class ProductUnavailable(val productId: String) : ShopkeeperException("$productId cannot be bought here")

    /** A downloaded file does not match its manifest's SHA-256 even after a fresh download. */
    class ChecksumMismatch(val path: String) : ShopkeeperException("$path does not match its manifest's SHA-256")

    /** The purchase's content was withdrawn (refunded or revoked); its files were deleted from the device. */
    class ContentRevoked(val productId: String) : ShopkeeperException("the content of $productId was revoked")

    /** Reading or writing the client's files on the device failed. */
    class Storage(message: String, cause: Throwable? = null) : ShopkeeperException(message, cause)

    /**
     * The app trusts answer keys ([ShopkeeperConfiguration.answerKeys]) and this answer is not signed by one of them
     * for its request (altered, replayed, unsigned, or too far from the device's clock): it was not used or cached.
     * Never retried: ShopkeeperKit's `ShopkeeperError.untrustedAnswer`.
     */
    class UntrustedAnswer(val reason: String) : ShopkeeperException("untrusted answer: $reason")

    /** The server's stable error code, for server answers. */
    val code: String?
        get() = (this as? Server)?.problem?.code

    /** The HTTP status of a server answer. */
    val status: Int?
        get() = (this as? Server)?.problem?.status

    /** Whether the same request may succeed later: transport failures, `408`, `429` and `5xx`; never another `4xx`. */
    val isRetryable: Boolean
        get() = when (this) {
            is Transport -> true
            is Server -> RetryPolicy.isRetryable(problem.status)
            else -> false
        }
}
