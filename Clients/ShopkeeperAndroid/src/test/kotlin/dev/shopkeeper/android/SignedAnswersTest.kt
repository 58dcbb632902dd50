package dev.shopkeeper.android

import dev.shopkeeper.android.core.Json
import dev.shopkeeper.android.core.RetryPolicy
import dev.shopkeeper.android.core.ShopkeeperApi
import dev.shopkeeper.android.core.ShopkeeperConfiguration
import dev.shopkeeper.android.core.ShopkeeperException
import dev.shopkeeper.android.models.BuildKind
import dev.shopkeeper.android.models.StorePlatform
import java.security.KeyPair
import java.security.KeyPairGenerator
import java.security.MessageDigest
import java.security.Signature
import java.util.Base64
import kotlinx.coroutines.runBlocking
import org.junit.Assert.assertEquals
import org.junit.Assert.assertNull
import org.junit.Assert.assertTrue
import org.junit.Assert.fail
import org.junit.Test

/**
 * The client's check of signed answers (`docs/openapi.yaml`, "Signed answers"), against a real local server that signs
 * its answers with real Ed25519 keys by the documented format (written here again, not borrowed from the client):
 * each way an answer can be forged or misused is refused as `UntrustedAnswer`, as ShopkeeperKit's
 * `AnswerVerifierTests` and its signed-answers stack test hold ShopkeeperKit to.
 */
class SignedAnswersTest : WithLocalServer() {
    private val key = newKey()
    private val body = Json.write(Answers.customer("alice"))
    private val catalog = Json.write(Answers.catalog(Answers.item("pro", "non_consumable")))

    /** How the test server signs (or spoils) the next answers. */
    private class Signing(
        var keyId: String = "ask_one",
        var signer: KeyPair? = null,
        var nonce: String? = null,
        var target: String? = null,
        var status: Int? = null,
        var etag: String? = "\"e1\"",
        var signedEtag: String? = null,
        var body: String? = null,
        var signedAtOffset: Long = 0,
        var header: String? = null,
        var unsigned: Boolean = false
    )

    private var signing = Signing()

    private fun api(keys: Map<String, String> = mapOf("ask_one" to rawPublic(key))) = ShopkeeperApi(
        ShopkeeperConfiguration(
            baseUrl = server.url, apiKey = "pk_test_android", appVersion = "1.2.0", storageDirectory = storage,
            retryPolicy = RetryPolicy(maxAttempts = 1), answerKeys = keys
        )
    )

    /** Answers a customer (or a `304` to a known tag), signed as [signing] says. */
    private fun serve() {
        server.handler = { request ->
            val s = signing
            val notModified = request.header("If-None-Match") != null && request.header("If-None-Match") == s.etag
            val status = if (notModified) 304 else 200
            val sentBody = if (notModified) "" else if (request.path == "/v1/catalog") catalog else body
            val target = request.path + (request.query?.let { "?$it" } ?: "")
            val seconds = (System.currentTimeMillis() / 1000 + s.signedAtOffset).toString()
            val headers = LinkedHashMap<String, String>()
            if (s.etag != null) headers["ETag"] = s.etag!!
            if (!s.unsigned) {
                val message = listOf(
                    "shopkeeper-answer-v1", (s.status ?: status).toString(), s.target ?: target,
                    s.nonce ?: request.header("X-Shopkeeper-Nonce") ?: "", seconds, s.signedEtag ?: s.etag ?: "",
                    sha256(if (notModified) ByteArray(0) else sentBody.toByteArray(Charsets.UTF_8))
                ).joinToString("\n")
                val signer = Signature.getInstance("Ed25519")
                signer.initSign((s.signer ?: key).private)
                signer.update(message.toByteArray(Charsets.UTF_8))
                val sig = Base64.getEncoder().encodeToString(signer.sign())
                headers["X-Shopkeeper-Signature"] = s.header ?: "v1;key=${s.keyId};t=$seconds;sig=$sig"
            }
            Reply(status, s.body ?: sentBody, mapOf("Content-Type" to "application/json") + headers)
        }
    }

    private fun refuses(user: String = "alice", api: ShopkeeperApi = api()): String = runBlocking {
        try {
            api.customerInfo(user)
        } catch (error: ShopkeeperException.UntrustedAnswer) {
            assertNull("an untrusted answer has no server code", error.code)
            assertTrue("never retried", !error.isRetryable)
            return@runBlocking error.reason
        }
        fail("the client took a forged answer")
        ""
    }

    @Test
    fun aSignedAnswerToThisRequestIsTakenAndEachRequestHasItsOwnNonce() = runBlocking<Unit> {
        serve()
        val api = api()
        assertEquals("alice", api.customerInfo("alice").appUserId)
        assertEquals("alice", api.customerInfo("alice").appUserId)
        assertEquals(1, api.notModifiedCount)
        val nonces = server.requests.map { it.header("X-Shopkeeper-Nonce") }
        assertEquals(2, nonces.toSet().size)
        assertTrue(nonces.all { it != null && it.length == 36 })
    }

    @Test
    fun theTargetIsThePathAndQueryAsSent() = runBlocking<Unit> {
        serve()
        api().customerInfo("a b/ä")
        assertEquals("/v1/customers/a%20b%2F%C3%A4", server.requests[0].path)
        val shop = api().catalog(StorePlatform.PLAY_STORE, "1.2.0", BuildKind.DEVELOPMENT, locale = "de AT")
        assertEquals("pro", shop.products[0].productId)
        assertEquals("platform=play_store&app_version=1.2.0&build=development&locale=de%20AT", server.requests[1].query)
        signing.target = "/v1/customers/a b/ä"
        assertTrue(refuses("a b/ä").contains("does not match"))
    }

    @Test
    fun alteredAnswersAreRefusedAndTheKeptAnswerStays() = runBlocking<Unit> {
        serve()
        val api = api()
        val honest = api.customerInfo("alice")
        signing.body = body.replace("\"entitlements\":{}", "\"entitlements\":{\"pro\":{\"active\":true}}")
        signing.etag = "\"e2\""
        signing.signedEtag = "\"e2\""
        assertTrue(refuses(api = api).contains("does not match"))
        signing = Signing(status = 201)
        assertTrue(refuses(api = api).contains("does not match"))
        signing = Signing(etag = "\"e3\"", signedEtag = "\"e1\"")
        assertTrue(refuses(api = api).contains("does not match"))
        // The kept answer is the honest one: a 304 for its tag answers it again.
        signing = Signing()
        assertEquals(honest, api.customerInfo("alice"))
        assertEquals(1, api.notModifiedCount)
    }

    @Test
    fun aSigned304ForAnotherTagIsRefused() = runBlocking<Unit> {
        serve()
        val api = api()
        api.customerInfo("alice")
        // The proxy answers 304 naming another tag than the one the client keeps (and signs it as such).
        server.handler = { request ->
            val seconds = (System.currentTimeMillis() / 1000).toString()
            val message = listOf(
                "shopkeeper-answer-v1", "304", request.path, request.header("X-Shopkeeper-Nonce") ?: "", seconds, "\"other\"",
                sha256(ByteArray(0))
            ).joinToString("\n")
            val signer = Signature.getInstance("Ed25519")
            signer.initSign(key.private)
            signer.update(message.toByteArray(Charsets.UTF_8))
            val sig = Base64.getEncoder().encodeToString(signer.sign())
            Reply(304, headers = mapOf("ETag" to "\"other\"", "X-Shopkeeper-Signature" to "v1;key=ask_one;t=$seconds;sig=$sig"))
        }
        assertEquals("Not Modified names another entity tag than the one kept", refuses(api = api))
    }

    @Test
    fun answersToOtherRequestsAreRefused() {
        serve()
        // A replay of an older answer carries the older request's nonce; an answer to another path is not this one's.
        signing.nonce = "n0"
        assertTrue(refuses().contains("does not match"))
        signing = Signing(target = "/v1/customers/bob")
        assertTrue(refuses().contains("does not match"))
    }

    @Test
    fun unsignedStaleOrForeignAnswersAreRefused() {
        serve()
        signing.unsigned = true
        assertEquals("the answer is unsigned", refuses())
        // 300 s either way is allowed; 10 s more is not (with a margin: the server's second and the client's may differ).
        signing = Signing(signedAtOffset = -290)
        assertEquals("alice", runBlocking { api().customerInfo("alice") }.appUserId)
        signing = Signing(signedAtOffset = -310)
        assertTrue(refuses().contains("from the device's clock"))
        signing = Signing(signedAtOffset = 310)
        assertTrue(refuses().contains("from the device's clock"))
        // Signed by a key the app does not trust, under a trusted key's id or its own.
        signing = Signing(signer = newKey())
        assertTrue(refuses().contains("does not match"))
        signing = Signing(keyId = "ask_other", signer = newKey())
        assertEquals("signed with key 'ask_other', which the app does not trust", refuses())
        signing = Signing(header = "v2;key=ask_one;t=1;sig=AAAA")
        assertTrue(refuses().startsWith("unknown signature version"))
        signing = Signing(header = "v1;key=ask_one;sig=AAAA")
        assertTrue(refuses().startsWith("malformed signature"))
        signing = Signing(header = "v1;key=ask_one;t=1;sig=not*base64")
        assertTrue(refuses().startsWith("malformed signature"))
    }

    @Test
    fun errorsAreNotSignedAndPassAsProblems() = runBlocking<Unit> {
        server.handler = { Reply.problem(404, "customer_not_found") }
        try {
            api().customerInfo("alice")
            fail("no error")
        } catch (error: ShopkeeperException.Server) {
            assertEquals("customer_not_found", error.code)
        }
    }

    @Test
    fun withoutKeysAnswersAreTakenUnsignedAndNoNonceIsSent() = runBlocking<Unit> {
        serve()
        signing.unsigned = true
        assertEquals("alice", api(keys = emptyMap()).customerInfo("alice").appUserId)
        assertNull(server.requests[0].header("X-Shopkeeper-Nonce"))
    }

    @Test
    fun rotationTrustsEitherKeyAndAMisconfiguredKeyFailsAtStart() = runBlocking<Unit> {
        serve()
        val next = newKey()
        val both = api(mapOf("ask_one" to rawPublic(key), "ask_two" to rawPublic(next)))
        assertEquals("alice", both.customerInfo("alice").appUserId)
        signing = Signing(keyId = "ask_two", signer = next, etag = null)
        assertEquals("alice", both.customerInfo("alice").appUserId)
        for (broken in listOf("not base64 of a key", Base64.getEncoder().encodeToString(ByteArray(31)))) {
            try {
                api(mapOf("ask_one" to broken))
                fail("a broken key was taken: $broken")
            } catch (error: IllegalArgumentException) {
                assertTrue(error.message ?: "", (error.message ?: "").contains("answerKeys[ask_one]"))
            }
        }
    }

    private companion object {
        fun newKey(): KeyPair = KeyPairGenerator.getInstance("Ed25519").generateKeyPair()

        /** The raw 32-byte public key in base64, as `GET /v1/admin/answer-signing` gives it (the DER's last bytes). */
        fun rawPublic(pair: KeyPair): String {
            val der = pair.public.encoded
            return Base64.getEncoder().encodeToString(der.copyOfRange(der.size - 32, der.size))
        }

        fun sha256(bytes: ByteArray) =
            MessageDigest.getInstance("SHA-256").digest(bytes).joinToString("") { String.format("%02x", it) }
    }
}
