package dev.shopkeeper.android.stack

import dev.shopkeeper.android.core.Json
import dev.shopkeeper.android.core.JsonObject
import dev.shopkeeper.android.models.ProductType
import dev.shopkeeper.android.purchases.PurchaseOutcome
import java.io.File
import java.nio.file.Files
import java.util.UUID
import java.util.concurrent.TimeUnit
import kotlinx.coroutines.runBlocking
import org.junit.Assert.assertEquals
import org.junit.Assert.assertNotEquals
import org.junit.Assert.assertTrue
import org.junit.Assume
import org.junit.Test

/**
 * One account across platforms, through the real clients: a person subscribes on the App Store through ShopkeeperKit's
 * sandbox client (its `ShopkeeperSandboxDemo`, which `SHOPKEEPER_KIT_DEMO` names), logs in on Android with the same app
 * user id, sees it and subscribes on Google Play too, and the iPhone then sees both; and Play purchases made through
 * ShopkeeperAndroid (signed answers on) are read by the web client (`Clients/shopkeeper-web`, in Node, verifying
 * signed answers too) after it logs in with the same app user id. (The web's Stripe purchase redeemed on Android:
 * `RedemptionOfferingsStackTest`.)
 */
class CrossPlatformStackTest {
    private val stack = Stack.current

    @Test
    fun anAppStoreSubscriptionBoughtThroughShopkeeperKitAndAPlayOneShowTogether() = runBlocking<Unit> {
        val kit = System.getenv("SHOPKEEPER_KIT_DEMO")?.let { File(it) }
        Assume.assumeTrue("ShopkeeperKit's sandbox demo is not built (SHOPKEEPER_KIT_DEMO)", kit != null && kit.canExecute())
        val onIphone = stack.createProduct(ProductType.AUTO_RENEWABLE, duration = "P1M")
        val onPlay = stack.createProduct(ProductType.AUTO_RENEWABLE, duration = "P1M")
        val user = "cross_kit_${UUID.randomUUID().toString().take(8)}"
        val iphone = Files.createTempDirectory("android-cross-iphone").toFile()
        val bought = runKit(kit!!, iphone, onIphone, user)
        assertTrue(bought, bought.contains("bought $onIphone"))
        assertTrue(bought, bought.contains("$onIphone: active (subscription, app_store)"))

        val phone = stack.device().shopkeeper
        val seen = phone.logIn(user).entitlements[onIphone]
        assertEquals(true, seen?.active)
        assertEquals("app_store", seen?.store?.rawValue)
        val outcome = phone.purchase(onPlay)
        assertTrue("$outcome", outcome is PurchaseOutcome.Delivered)
        val both = phone.customerInfo().entitlements
        assertEquals(mapOf(onIphone to "app_store", onPlay to "play_store"), listOf(onIphone, onPlay).associate { id ->
            id to (both[id]?.takeIf { it.active }?.store?.rawValue ?: "inactive")
        })

        val later = runKit(kit, iphone, "--no-purchase", user)
        assertTrue(later, later.contains("$onIphone: active (subscription, app_store)"))
        assertTrue(later, later.contains("$onPlay: active (subscription, play_store)"))
    }

    /** Runs ShopkeeperKit's sandbox demo (an iPhone keeping its state in [device]) against the stack; its output. */
    private fun runKit(kit: File, device: File, vararg arguments: String): String {
        val builder = ProcessBuilder(listOf(kit.path) + arguments).redirectErrorStream(true)
        builder.environment().putAll(
            mapOf(
                "SHOPKEEPER_GATEWAY_URL" to stack.gatewayUrl, "SHOPKEEPER_PUBLIC_KEY" to stack.publicKey,
                "SHOPKEEPER_SANDBOX_URL" to stack.sandboxUrl, "SHOPKEEPER_DEMO_BUNDLE_ID" to stack.packageName,
                "SHOPKEEPER_KIT_DEMO_DIR" to device.path
            )
        )
        val process = builder.start()
        val output = process.inputStream.bufferedReader().readText()
        check(process.waitFor(120, TimeUnit.SECONDS) && process.exitValue() == 0) { "ShopkeeperKit's demo failed: $output" }
        return output
    }

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
