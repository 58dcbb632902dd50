package dev.shopkeeper.android.stack

import dev.shopkeeper.android.core.HttpExchange
import dev.shopkeeper.android.core.RetryPolicy
import dev.shopkeeper.android.core.ShopkeeperApi
import dev.shopkeeper.android.core.ShopkeeperConfiguration
import dev.shopkeeper.android.core.ShopkeeperException
import dev.shopkeeper.android.purchases.PurchaseOutcome
import java.io.File
import java.nio.file.Files
import java.security.KeyPairGenerator
import java.util.Base64
import java.util.UUID
import kotlinx.coroutines.runBlocking
import org.junit.Assert.assertEquals
import org.junit.Assert.assertTrue
import org.junit.Assert.fail
import org.junit.Test

/**
 * Signed answers end to end, as ShopkeeperKit's `SignedAnswersStackTests`: the demo app signs its answers, a client
 * that trusts its key buys, reads and restores through the real gateway, and a proxy between the client and the
 * gateway (ShopkeeperKit's `Scripts/tampering-proxy.py`) that alters, strips, re-asks or replays an answer is caught
 * every time; a client that trusts another key under the same id takes nothing.
 */
class SignedAnswersStackTest {
    private val stack = Stack.current

    @Test
    fun aClientThatTrustsTheKeyBuysReadsAndRestoresThroughSignedAnswers() = runBlocking<Unit> {
        val keys = stack.trustedAnswerKeys()
        assertTrue("the demo app has an answer signing key", keys.isNotEmpty())
        val shopkeeper = stack.device(answerKeys = keys).shopkeeper
        val outcome = shopkeeper.purchase("extra_garden")
        if (outcome !is PurchaseOutcome.Delivered) throw AssertionError("not delivered: $outcome")
        assertEquals(true, outcome.response.customer?.entitlements?.get("extra_garden")?.active)
        assertEquals(true, shopkeeper.customerInfo().entitlements["extra_garden"]?.active)
        assertEquals(true, shopkeeper.restore().customer.entitlements["extra_garden"]?.active)
    }

    @Test
    fun aProxyThatAltersStripsReasksOrReplaysIsCaught() = runBlocking<Unit> {
        val keys = stack.trustedAnswerKeys()
        TamperingProxy(stack.gatewayUrl).use { proxy ->
            val api = api(proxy.url, keys)
            val user = "signed-${UUID.randomUUID()}"
            proxy.set("pass")
            val honest = api.customerInfo(user)
            assertEquals(user, honest.appUserId)
            assertTrue(honest.entitlements.isEmpty())
            for (mode in listOf("grant", "strip", "nonce", "replay")) {
                proxy.set(mode)
                try {
                    val taken = api.customerInfo(user)
                    fail("$mode: the client took a tampered answer: ${taken.entitlements.keys.sorted()}")
                } catch (error: ShopkeeperException.UntrustedAnswer) {
                    // Refused, as it should be.
                }
            }
            proxy.set("pass")
            assertEquals(honest, api.customerInfo(user))
        }
    }

    @Test
    fun aClientThatTrustsAnotherKeyTakesNothing() = runBlocking<Unit> {
        val keys = stack.trustedAnswerKeys()
        val der = KeyPairGenerator.getInstance("Ed25519").generateKeyPair().public.encoded
        val impostor = Base64.getEncoder().encodeToString(der.copyOfRange(der.size - 32, der.size))
        val api = api(stack.gatewayUrl, keys.mapValues { impostor })
        try {
            api.customerInfo("signed-${UUID.randomUUID()}")
            fail("an answer signed by another key was taken")
        } catch (error: ShopkeeperException.UntrustedAnswer) {
            assertEquals("the signature does not match this answer to this request", error.reason)
        }
    }

    private fun api(baseUrl: String, keys: Map<String, String>) = ShopkeeperApi(
        ShopkeeperConfiguration(
            baseUrl = baseUrl, apiKey = stack.publicKey, appVersion = "2.0",
            storageDirectory = Files.createTempDirectory("android-signed").toFile(),
            retryPolicy = RetryPolicy(maxAttempts = 1), answerKeys = keys
        )
    )
}

/**
 * ShopkeeperKit's `Scripts/tampering-proxy.py` in front of the gateway: a real HTTP proxy that alters, strips, re-asks
 * or replays answers as told ([set]). It exits when its standard input closes ([close], or this process ending).
 */
class TamperingProxy(gateway: String) : java.io.Closeable {
    private val process: Process
    val url: String
    private val http = HttpExchange(10_000)

    init {
        val script = File(System.getenv("SHOPKEEPER_ROOT") ?: ".", "Clients/ShopkeeperKit/Scripts/tampering-proxy.py")
        check(script.isFile) { "no ${script.path} (SHOPKEEPER_ROOT names the repository)" }
        val portFile = File(Files.createTempDirectory("android-proxy").toFile(), "port")
        process = ProcessBuilder("python3", script.path, gateway, portFile.path)
            .redirectOutput(ProcessBuilder.Redirect.INHERIT).redirectError(ProcessBuilder.Redirect.INHERIT).start()
        val deadline = System.nanoTime() + 30_000_000_000L
        while (!portFile.isFile) {
            check(process.isAlive && System.nanoTime() < deadline) { "the tampering proxy did not start" }
            Thread.sleep(50) // polled: the script writes the file once it listens
        }
        url = "http://127.0.0.1:${portFile.readText().trim()}"
    }

    /** Switches what the proxy does to later requests (`pass`, `grant`, `strip`, `nonce`, `replay`). */
    fun set(mode: String) {
        val answer = http.send("POST", "$url/__mode/$mode", emptyMap(), ByteArray(0))
        check(answer.status == 204) { "the proxy answered ${answer.status} to mode $mode" }
    }

    override fun close() {
        process.outputStream.close()
        process.waitFor()
    }
}
