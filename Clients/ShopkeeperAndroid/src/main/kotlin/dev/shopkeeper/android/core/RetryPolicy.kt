package dev.shopkeeper.android.core

import java.util.concurrent.ThreadLocalRandom

/**
 * When and how often a request is tried again: on `408`, `429` and `5xx` answers and broken connections, never on
 * another `4xx` (a verdict that will not change). Waits `Retry-After` when the server gives it, otherwise an
 * exponential backoff with equal jitter. The defaults try four times within about ten seconds.
 */
data class RetryPolicy(
    /** Tries of one request in all (1: no retry). */
    val maxAttempts: Int = 4,
    /** The first backoff, in seconds; doubles per try. */
    val baseDelaySeconds: Double = 0.5,
    /** The longest wait, in seconds (a longer `Retry-After` is cut to it). */
    val maxDelaySeconds: Double = 8.0
) {
    init {
        require(maxAttempts >= 1) { "maxAttempts is at least 1" }
        require(baseDelaySeconds >= 0 && maxDelaySeconds >= 0) { "delays are not negative" }
    }

    /**
     * Seconds to wait after failed try number [attempt] (1-based): [retryAfter] when given, else
     * `baseDelay * 2^(attempt-1)` with equal jitter ([unit] in 0..1 picks the random half); at most [maxDelaySeconds].
     */
    fun delaySeconds(attempt: Int, retryAfter: Double?, unit: Double = ThreadLocalRandom.current().nextDouble()): Double {
        if (retryAfter != null) return Math.min(Math.max(0.0, retryAfter), maxDelaySeconds)
        val exponential = baseDelaySeconds * (1L shl Math.min(Math.max(attempt - 1, 0), 20))
        val capped = Math.min(exponential, maxDelaySeconds)
        return capped / 2 + capped / 2 * Math.min(Math.max(unit, 0.0), 1.0)
    }

    companion object {
        /** No retries: each request is sent once (the purchase queue still retries later). */
        val NONE = RetryPolicy(maxAttempts = 1)

        /** Whether an answer with this status may change if the same request is sent again. */
        fun isRetryable(status: Int): Boolean = status == 408 || status == 429 || status in 500..599

        /** `Retry-After` in whole (or decimal) seconds, what Shopkeeper sends; an HTTP date counts as not given. */
        fun retryAfterSeconds(header: String?): Double? {
            val seconds = header?.trim()?.toDoubleOrNull() ?: return null
            return if (seconds >= 0 && !seconds.isInfinite()) seconds else null
        }
    }
}
