package dev.shopkeeper.android.core

import dev.shopkeeper.android.models.Problem
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.delay
import kotlinx.coroutines.withContext

/** One request of [ShopkeeperApi]. */
internal class ApiRequest(
    val method: String,
    val path: String,
    /** Query parameters; `null` values are left out. */
    val query: List<Pair<String, String?>> = emptyList(),
    /** The app user id the request acts for (adds the customer token). */
    val customer: String? = null,
    val headers: Map<String, String> = emptyMap(),
    /** Keep the `200` body by `ETag` and revalidate with `If-None-Match`. */
    val cached: Boolean = false,
    /** A JSON body. */
    val body: Map<String, Any?>? = null
)

/**
 * Runs [attempt] until it answers, or fails with something trying again cannot help (`ShopkeeperException.isRetryable`)
 * or the policy's tries are spent; waits between tries as the policy says (`Retry-After` first).
 */
internal suspend fun <T> withRetries(policy: RetryPolicy, attempt: suspend () -> T): T {
    var tries = 0
    while (true) {
        tries++
        try {
            return attempt()
        } catch (error: ShopkeeperException) {
            if (!error.isRetryable || tries >= policy.maxAttempts) throw error
            val retryAfter = (error as? ShopkeeperException.Server)?.retryAfterSeconds
            delay((policy.delaySeconds(tries, retryAfter) * 1000).toLong())
        }
    }
}

/** Sends [ApiRequest]s: headers, the retry loop, the `ETag` cache, and problem documents as exceptions. */
internal class ApiTransport(private val configuration: ShopkeeperConfiguration, private val exchange: HttpExchange) {
    val cache = ETagCache()

    /** Sends the request (retrying by the policy) and answers a `2xx` body (or a `304`'s kept one) as an object. */
    suspend fun send(request: ApiRequest): JsonObject {
        val answer = sendForText(request)
        return try {
            JsonObject.parse(answer)
        } catch (error: ShopkeeperException.Decoding) {
            throw ShopkeeperException.Decoding("${request.method} ${request.path}: ${error.message}")
        }
    }

    private suspend fun sendForText(request: ApiRequest): String {
        val url = url(request)
        val body = request.body?.let { Json.write(it).toByteArray(Charsets.UTF_8) }
        return withRetries(configuration.retryPolicy) {
            val headers = LinkedHashMap<String, String>()
            headers["Authorization"] = "Bearer ${configuration.apiKey}"
            headers["Accept"] = "application/json"
            headers.putAll(request.headers)
            if (body != null) headers["Content-Type"] = "application/json"
            request.customer?.let { customer -> customerToken(customer)?.let { headers["Shopkeeper-Customer-Token"] = it } }
            val etag = if (request.cached) cache.etag(url) else null
            if (etag != null) headers["If-None-Match"] = etag
            val verifier = configuration.answerVerifier
            val nonce = verifier?.makeNonce()
            if (nonce != null) headers[AnswerVerifier.NONCE_HEADER] = nonce
            val answer = withContext(Dispatchers.IO) { exchange.send(request.method, url, headers, body) }
            if (verifier != null && nonce != null && (answer.status in 200..299 || answer.status == 304)) {
                verifier.verify(answer, AnswerVerifier.target(url), nonce)
                // A signed 304 vouches for the entity tag it names: it must be the one whose body is kept.
                if (answer.status == 304 && answer.header("ETag") != etag) {
                    throw ShopkeeperException.UntrustedAnswer("Not Modified names another entity tag than the one kept")
                }
            }
            val kept = if (answer.status == 304 && request.cached) cache.notModifiedBody(url) else null
            when {
                answer.status in 200..299 -> {
                    val tag = answer.header("ETag")
                    if (request.cached && tag != null) cache.store(url, tag, answer.body)
                    answer.text
                }
                kept != null -> String(kept, Charsets.UTF_8)
                else -> throw failure(answer)
            }
        }
    }

    private suspend fun customerToken(appUserId: String): String? {
        val provider = configuration.customerToken ?: return null
        return try {
            provider(appUserId)
        } catch (error: Exception) {
            if (error is kotlinx.coroutines.CancellationException) throw error
            throw ShopkeeperException.Server(
                Problem(
                    "about:blank", "Customer token unavailable", 401,
                    "The app's customer token provider failed: $error", "customer_token_unavailable"
                ),
                null
            )
        }
    }

    private fun url(request: ApiRequest): String {
        val query = request.query.filter { it.second != null }
            .joinToString("&") { "${ShopkeeperApi.segment(it.first)}=${ShopkeeperApi.segment(it.second ?: "")}" }
        return configuration.base + request.path + if (query == "") "" else "?$query"
    }

    companion object {
        /** The failure an error answer is: its problem document and `Retry-After`. */
        fun failure(answer: HttpAnswer) =
            ShopkeeperException.Server(problem(answer), RetryPolicy.retryAfterSeconds(answer.header("Retry-After")))

        /** The answer's problem document, or one made from its status when the body is not one. */
        fun problem(answer: HttpAnswer): Problem = try {
            Problem.from(JsonObject.parse(answer.text))
        } catch (error: ShopkeeperException.Decoding) {
            Problem("about:blank", "HTTP ${answer.status}", answer.status, answer.text.take(512), "http_${answer.status}")
        }
    }
}
