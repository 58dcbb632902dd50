package dev.shopkeeper.android.stack

import dev.shopkeeper.android.core.Json
import dev.shopkeeper.android.core.JsonObject
import dev.shopkeeper.android.models.ProductType
import dev.shopkeeper.android.purchases.PurchaseOutcome
import java.io.File
import java.util.UUID
import java.util.concurrent.TimeUnit
import kotlinx.coroutines.runBlocking
import org.junit.Assert.assertEquals
import org.junit.Assert.assertNotEquals
import org.junit.Assert.assertTrue
import org.junit.Test

/**
 * One account across platforms, through two real clients: a person buys on Google Play through ShopkeeperAndroid (with
 * signed answers on), then opens the web shop, where the web client (`Clients/shopkeeper-web`, in Node, verifying
 * signed answers too) logs in with the same app user id and reads the same entitlements, from Play. (The App Store
 * and Play together: `PlayStackTest.oneAccountAcrossTheAppStoreAndPlay`; the web's Stripe purchase redeemed on
 * Android: `RedemptionOfferingsStackTest`.)
 */
class CrossPlatformStackTest {
    private val stack = Stack.current

    @Test
    fun playPurchasesOnAndroidAreTheWebClientsToo() = runBlocking<Unit> {
        val keys = stack.trustedAnswerKeys()
        val garden = stack.createProduct(ProductType.NON_CONSUMABLE)
        val monthly = stack.createProduct(ProductType.AUTO_RENEWABLE, duration = "P1M")
        val user = "cross_${UUID.randomUUID().toString().take(8)}"

        val phone = stack.device(answerKeys = keys).shopkeeper
        phone.logIn(user)
        for (product in listOf(garden, monthly)) {
            val outcome = phone.purchase(product)
            assertTrue("$product: $outcome", outcome is PurchaseOutcome.Delivered)
        }

        val web = onTheWeb(user, keys)
        assertEquals(user, web.string("app_user_id"))
        assertNotEquals("the browser came with its own anonymous id", user, web.string("anonymous_id"))
        val entitlements = web.obj("entitlements")
        for (product in listOf(garden, monthly)) {
            assertEquals(true, entitlements.obj(product).boolean("active"))
            assertEquals("play_store", entitlements.obj(product).string("store"))
        }
        // And back on Android: the browser's visit changed nothing the phone sees.
        assertEquals(setOf(garden, monthly), phone.customerInfo().activeEntitlements.filter { it == garden || it == monthly }.toSet())
    }

    /** What the web client reads for [user] (`src/stack/web/customer-on-the-web.mjs` in Node). */
    private fun onTheWeb(user: String, keys: Map<String, String>): JsonObject {
        val root = System.getenv("SHOPKEEPER_ROOT") ?: "."
        val script = File(root, "Clients/ShopkeeperAndroid/src/stack/web/customer-on-the-web.mjs")
        val process = ProcessBuilder("node", script.path, stack.gatewayUrl, stack.publicKey, user, Json.write(keys))
            .redirectError(ProcessBuilder.Redirect.INHERIT).start()
        val output = process.inputStream.bufferedReader().readText()
        check(process.waitFor(60, TimeUnit.SECONDS) && process.exitValue() == 0) { "the web client failed: $output" }
        return JsonObject.parse(output.trim().lines().last())
    }
}
