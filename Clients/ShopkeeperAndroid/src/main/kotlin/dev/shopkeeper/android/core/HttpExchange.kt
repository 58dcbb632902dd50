package dev.shopkeeper.android.core

import java.io.IOException
import java.io.InputStream
import java.net.HttpURLConnection
import java.net.URL
import java.util.TreeMap

/** One HTTP answer: status, headers (names compared without case) and body. */
class HttpAnswer(val status: Int, headers: Map<String, String>, val body: ByteArray) {
    private val headers = TreeMap<String, String>(String.CASE_INSENSITIVE_ORDER).apply { putAll(headers) }

    /** A header's value (the last one sent), if any. */
    fun header(name: String): String? = headers[name]

    /** The body as UTF-8 text. */
    val text: String
        get() = String(body, Charsets.UTF_8)
}

/**
 * Sends one request with `java.net.HttpURLConnection` (on Android and the JVM alike) and reads the whole answer.
 * No HTTP cache and no redirects: the client revalidates by `ETag` itself, and the API never redirects.
 */
class HttpExchange(private val timeoutMillis: Int) {
    /** Largest answer read (a catalog or customer is a few kilobytes; anything near this is not Shopkeeper). */
    private val maxBody = 16 * 1024 * 1024

    /** Blocks until the answer is read; throws [ShopkeeperException.Transport] when there is none. */
    fun send(method: String, url: String, headers: Map<String, String>, body: ByteArray?): HttpAnswer {
        val connection = try {
            URL(url).openConnection() as HttpURLConnection
        } catch (error: IOException) {
            throw ShopkeeperException.Transport("cannot open $url: $error", error)
        }
        try {
            connection.requestMethod = method
            connection.connectTimeout = timeoutMillis
            connection.readTimeout = timeoutMillis
            connection.useCaches = false
            connection.instanceFollowRedirects = false
            for ((name, value) in headers) connection.setRequestProperty(name, value)
            if (body != null) {
                connection.doOutput = true
                connection.setFixedLengthStreamingMode(body.size)
                connection.outputStream.use { it.write(body) }
            }
            val status = connection.responseCode
            val stream: InputStream? = if (status >= 400) connection.errorStream else connection.inputStream
            val bytes = stream?.use { read(it) } ?: ByteArray(0)
            val answerHeaders = HashMap<String, String>()
            for ((name, values) in connection.headerFields) {
                if (name != null && values.isNotEmpty()) answerHeaders[name] = values[values.size - 1]
            }
            return HttpAnswer(status, answerHeaders, bytes)
        } catch (error: java.net.HttpRetryException) {
            // A 401 with `WWW-Authenticate` (from a proxy) to a streamed body: an answer, not a broken connection.
            return HttpAnswer(error.responseCode(), emptyMap(), ByteArray(0))
        } catch (error: IOException) {
            throw ShopkeeperException.Transport("$method $url: $error", error)
        } finally {
            connection.disconnect()
        }
    }

    private fun read(stream: InputStream): ByteArray {
        val out = java.io.ByteArrayOutputStream()
        val buffer = ByteArray(8192)
        while (true) {
            val count = stream.read(buffer)
            if (count < 0) break
            out.write(buffer, 0, count)
            if (out.size() > maxBody) throw IOException("answer larger than $maxBody bytes")
        }
        return out.toByteArray()
    }
}

/** The last `200` body and its `ETag` per URL (catalog and customer info), so that a `304` answers from memory. */
internal class ETagCache {
    private class Entry(val etag: String, val body: ByteArray)

    private val entries = HashMap<String, Entry>()
    private var notModified = 0

    /** How many answers were `304 Not Modified` and came from here. */
    val notModifiedCount: Int
        get() = synchronized(this) { notModified }

    fun etag(key: String): String? = synchronized(this) { entries[key]?.etag }

    /** The kept body, counted as a `304` served. */
    fun notModifiedBody(key: String): ByteArray? = synchronized(this) {
        val body = entries[key]?.body
        if (body != null) notModified++
        body
    }

    fun store(key: String, etag: String, body: ByteArray) = synchronized(this) { entries[key] = Entry(etag, body) }

    fun clear() = synchronized(this) { entries.clear() }
}
