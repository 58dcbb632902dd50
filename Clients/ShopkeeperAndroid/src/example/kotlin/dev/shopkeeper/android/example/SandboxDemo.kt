package dev.shopkeeper.android.example

import dev.shopkeeper.android.core.ShopkeeperConfiguration
import dev.shopkeeper.android.purchases.PurchaseOutcome
import dev.shopkeeper.android.purchases.Shopkeeper
import dev.shopkeeper.android.sandbox.SandboxDeviceStore
import java.io.File
import kotlin.system.exitProcess
import kotlinx.coroutines.runBlocking

/**
 * The README's JVM example: buys the demo shop's `extra_garden` at the sandbox Google Play of a stack that
 * `scripts/run` started, and prints the entitlement it grants. Reads the stack's `local.env` values from the
 * environment (`set -a; . .shopkeeper/local.env`); keeps its files in `SHOPKEEPER_DEMO_DIR` (default
 * `./shopkeeper-android-demo`).
 */
fun main() = runBlocking {
    val env = System.getenv()
    val directory = File(env["SHOPKEEPER_DEMO_DIR"] ?: "shopkeeper-android-demo")
    val shopkeeper = Shopkeeper(
        ShopkeeperConfiguration(
            baseUrl = env.getValue("SHOPKEEPER_GATEWAY_URL"),
            apiKey = env.getValue("SHOPKEEPER_PUBLIC_KEY"),
            appVersion = "2.0",
            storageDirectory = File(directory, "shopkeeper")
        ),
        SandboxDeviceStore(
            sandboxUrl = env.getValue("SHOPKEEPER_SANDBOX_URL"),
            packageName = env["SHOPKEEPER_DEMO_BUNDLE_ID"] ?: "com.shopkeeper.demo.garden",
            deviceDirectory = File(directory, "play")
        )
    )
    shopkeeper.start(this)
    println("customer ${shopkeeper.appUserId}")
    val outcome = shopkeeper.purchase("extra_garden")
    shopkeeper.stop()
    if (outcome !is PurchaseOutcome.Delivered) {
        println("not delivered: $outcome")
        exitProcess(1)
    }
    val entitlement = shopkeeper.customerInfo().entitlements["extra_garden"]
    println("extra_garden active=${entitlement?.active} store=${entitlement?.store} environment=${entitlement?.environment}")
}
