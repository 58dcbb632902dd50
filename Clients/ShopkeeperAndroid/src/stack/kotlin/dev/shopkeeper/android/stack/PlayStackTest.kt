package dev.shopkeeper.android.stack

import dev.shopkeeper.android.core.RetryPolicy
import dev.shopkeeper.android.core.ShopkeeperApi
import dev.shopkeeper.android.core.ShopkeeperException
import dev.shopkeeper.android.core.jsonOf
import dev.shopkeeper.android.models.CustomerInfo
import dev.shopkeeper.android.models.ProductType
import dev.shopkeeper.android.models.PurchaseProof
import dev.shopkeeper.android.purchases.DevicePurchaseRequest
import dev.shopkeeper.android.purchases.DeviceStore
import dev.shopkeeper.android.purchases.DeviceTransaction
import dev.shopkeeper.android.purchases.PurchaseOutcome
import dev.shopkeeper.android.support.AppAccountToken
import java.io.File
import java.util.UUID
import java.util.concurrent.LinkedBlockingQueue
import java.util.concurrent.TimeUnit
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.Job
import kotlinx.coroutines.runBlocking
import org.junit.Assert.assertEquals
import org.junit.Assert.assertNotNull
import org.junit.Assert.assertNull
import org.junit.Assert.assertTrue
import org.junit.Assert.fail
import org.junit.After
import org.junit.Test

/**
 * ShopkeeperAndroid's core against the real services and the sandbox Google Play (`test-with-stack`): purchases of
 * each product type, an outage kept and retried, a forged token refused for good, restore on a new phone, a retried
 * spend, a pending purchase, and one customer across the App Store and Play.
 */
class PlayStackTest {
    private val stack = Stack.current
    /** The app's scope: where a started client's listener and retries run; cancelled after each test. */
    private val job = Job()
    private val scope = CoroutineScope(Dispatchers.Default + job)

    @After
    fun tearDown() {
        job.cancel()
    }

    private fun delivered(outcome: PurchaseOutcome): CustomerInfo {
        if (outcome !is PurchaseOutcome.Delivered) throw AssertionError("not delivered: $outcome")
        return outcome.response.customer ?: throw AssertionError("no customer in the answer")
    }

    @Test
    fun eachProductTypeIsBoughtAtPlayAndGranted() = runBlocking<Unit> {
        val garden = stack.createProduct(ProductType.NON_CONSUMABLE)
        val coins = stack.createProduct(ProductType.CONSUMABLE)
        val monthly = stack.createProduct(ProductType.AUTO_RENEWABLE, duration = "P1M")
        val phone = stack.device()
        val shopkeeper = phone.shopkeeper
        assertTrue(delivered(shopkeeper.purchase(garden)).entitlements[garden]?.active == true)
        assertEquals(5, delivered(shopkeeper.purchase(coins)).consumableBalances[coins])
        delivered(shopkeeper.purchase(monthly))
        val info = shopkeeper.customerInfo()
        assertTrue(info.activeEntitlements.containsAll(listOf(garden, monthly)))
        val subscription = info.subscriptions.single { it.productId == monthly }
        assertEquals("play_store", subscription.store.rawValue)
        assertEquals("sandbox", subscription.environment.rawValue)
        assertTrue(phone.store.unfinishedTransactions().isEmpty())
        assertTrue(shopkeeper.pendingPurchases.isEmpty())
    }

    @Test
    fun aStoreOutageKeepsThePurchaseAndALaterRetryDeliversIt() = runBlocking<Unit> {
        val garden = stack.createProduct(ProductType.NON_CONSUMABLE)
        // The verifier looks the token up at the sandbox Play Developer API, which fails until the faults are cleared
        // (a large count: the store's own notification of the purchase makes the verifier look it up too).
        stack.sandbox("DELETE", "/sandbox/faults")
        stack.sandbox("POST", "/sandbox/faults", jsonOf("endpoint" to "google.products.get", "count" to 1000, "status" to 503))
        val phone = stack.device(retry = RetryPolicy.NONE)
        val kept = try {
            val outcome = phone.shopkeeper.purchase(garden)
            if (outcome !is PurchaseOutcome.Pending) throw AssertionError("expected the purchase to wait, got $outcome")
            assertEquals(503, outcome.error.status)
            assertEquals("store_unavailable", outcome.error.code)
            assertEquals(1, phone.store.unfinishedTransactions().size)
            assertNull(phone.shopkeeper.customerInfo().entitlements[garden])
            phone.shopkeeper.pendingPurchases
        } finally {
            stack.sandbox("DELETE", "/sandbox/faults")
        }
        assertEquals("store_unavailable", kept.single().lastError)
        // The app restarts (the queue is on disk) and the store is back.
        val restarted = stack.device(directory = phone.directory, retry = RetryPolicy.NONE)
        assertEquals(kept.map { it.id }, restarted.shopkeeper.pendingPurchases.map { it.id })
        val outcomes = restarted.shopkeeper.retryPendingPurchases()
        assertTrue(delivered(outcomes.getValue(kept[0].id)).entitlements[garden]?.active == true)
        assertTrue(restarted.shopkeeper.pendingPurchases.isEmpty())
        assertTrue(restarted.store.unfinishedTransactions().isEmpty())
    }

    /** A device whose purchases carry a token Play never issued. */
    private class ForgingStore(private val real: DeviceStore) : DeviceStore by real {
        override suspend fun purchase(request: DevicePurchaseRequest): DeviceTransaction? {
            val bought = real.purchase(request) ?: return null
            val proof = bought.proof as PurchaseProof.PlayPurchase
            return bought.copy(proof = proof.copy(token = "forged-" + UUID.randomUUID()))
        }
    }

    @Test
    fun aForgedTokenIsRefusedFinishedAndNotSentAgain() = runBlocking<Unit> {
        val garden = stack.createProduct(ProductType.NON_CONSUMABLE)
        val phone = stack.device(store = { ForgingStore(it) })
        val outcome = phone.shopkeeper.purchase(garden)
        if (outcome !is PurchaseOutcome.Refused) throw AssertionError("a forged token was not refused: $outcome")
        assertEquals("invalid_purchase_token", outcome.code)
        assertEquals("invalid_purchase_token", phone.shopkeeper.refusedTransactions.single().code)
        assertTrue(phone.shopkeeper.pendingPurchases.isEmpty())
        assertTrue(phone.shopkeeper.retryPendingPurchases().isEmpty())
        assertNull(phone.shopkeeper.customerInfo().entitlements[garden])
    }

    /**
     * A new phone of the same Google account, the same person logged in: the account's Play purchases come back.
     * (Purchases made by someone who never logged in do not yet: the server's restore merges anonymous installs by
     * App Store account tokens only, and answers a Play purchase of another anonymous id `403
     * obfuscated_account_id_mismatch`; see the README.)
     */
    @Test
    fun aRestoreOnANewPhoneOfTheSameAccountBringsThePurchasesBack() = runBlocking<Unit> {
        val garden = stack.createProduct(ProductType.NON_CONSUMABLE)
        val monthly = stack.createProduct(ProductType.AUTO_RENEWABLE, duration = "P1M")
        val user = "android_user_${UUID.randomUUID().toString().take(8)}"
        val old = stack.device()
        old.shopkeeper.logIn(user)
        delivered(old.shopkeeper.purchase(garden))
        delivered(old.shopkeeper.purchase(monthly))
        // A new phone signed in to the same Google account; the person logs in to the app again.
        val phone = stack.device(account = old.store.accountDirectory)
        phone.shopkeeper.logIn(user)
        val result = phone.shopkeeper.restore()
        assertEquals(user, result.customer.appUserId)
        assertTrue(result.customer.activeEntitlements.containsAll(listOf(garden, monthly)))
        assertEquals(2, result.restored.size)
        assertTrue(result.rejected.isEmpty())
        assertTrue(result.ownedByOtherAccount.isEmpty())
    }

    @Test
    fun aRetriedSpendSpendsOnce() = runBlocking<Unit> {
        val coins = stack.createProduct(ProductType.CONSUMABLE)
        val phone = stack.device()
        delivered(phone.shopkeeper.purchase(coins))
        val key = UUID.randomUUID().toString()
        val api = phone.shopkeeper.api
        val first = api.consume(phone.shopkeeper.appUserId, coins, 2, key)
        // The answer was lost; the client sends the same spend again with its key.
        val again = api.consume(phone.shopkeeper.appUserId, coins, 2, key)
        assertEquals(3, first.balance)
        assertEquals(3, again.balance)
        assertEquals(3, phone.shopkeeper.customerInfo().consumableBalances[coins])
        assertEquals(1, phone.shopkeeper.consume(coins, 2).balance)
        try {
            phone.shopkeeper.consume(coins, 2)
            fail("spent more than the balance")
        } catch (error: ShopkeeperException.Server) {
            assertEquals("insufficient_balance", error.code)
        }
        assertTrue(phone.shopkeeper.pendingConsumes.isEmpty())
    }

    @Test
    fun aPendingPurchaseIsGrantedOnlyOnceItCompletes() = runBlocking<Unit> {
        val garden = stack.createProduct(ProductType.NON_CONSUMABLE)
        val phone = stack.device()
        phone.shopkeeper.start(scope)
        try {
            phone.store.pendingPurchases = true
            try {
                phone.shopkeeper.purchase(garden)
                fail("a pending purchase completed")
            } catch (error: ShopkeeperException.PurchaseNotCompleted) {
            }
            assertNull(phone.shopkeeper.customerInfo().entitlements[garden])
            val granted = LinkedBlockingQueue<CustomerInfo>()
            phone.shopkeeper.addCustomerInfoListener { if (it.entitlements[garden]?.active == true) granted.add(it) }
            assertEquals(1, phone.store.complete().size)
            assertNotNull("the completed purchase was not granted", granted.poll(60, TimeUnit.SECONDS))
            assertTrue(phone.shopkeeper.pendingPurchases.isEmpty())
        } finally {
            phone.shopkeeper.stop()
        }
    }

    @Test
    fun contentIsDownloadedResumedCheckedAndDeletedAfterARefund() = runBlocking<Unit> {
        val product = stack.createProduct(ProductType.NON_CONSUMABLE)
        val big = ByteArray(300_000) { (it * 7919 shr 3).toByte() }
        val small = "a seed pack\n".toByteArray()
        stack.publishContent(product, mapOf("maps/big.bin" to big, "readme.txt" to small))
        val phone = stack.device()
        val shopkeeper = phone.shopkeeper
        delivered(shopkeeper.purchase(product))
        // The download of the big file broke off after its first 100 000 bytes.
        val partial = File(phone.directory, "shopkeeper/content/$product/.partial/1.0.0/maps/big.bin.part")
        partial.parentFile.mkdirs()
        partial.writeBytes(big.copyOfRange(0, 100_000))
        val pack = shopkeeper.content.download(product)
        assertEquals("1.0.0", pack.version)
        assertEquals((big.size - 100_000 + small.size).toLong(), pack.downloadedBytes)
        assertTrue(big.contentEquals(pack.files.getValue("maps/big.bin").readBytes()))
        assertTrue(small.contentEquals(pack.files.getValue("readme.txt").readBytes()))
        assertEquals(0L, shopkeeper.content.download(product).downloadedBytes)
        // Google refunds the purchase; the app checks its packs and deletes this one.
        val token = (phone.store.currentEntitlements().single().proof as PurchaseProof.PlayPurchase).token
        stack.sandbox("POST", "/sandbox/google/purchases/${ShopkeeperApi.segment(token)}/refund")
        assertEquals(listOf(product), shopkeeper.content.checkDownloaded())
        assertTrue(!pack.directory.exists())
        try {
            shopkeeper.content.download(product)
            fail("the refunded pack was downloaded again")
        } catch (error: ShopkeeperException.ContentRevoked) {
            assertEquals(product, error.productId)
        }
    }

    /**
     * One customer across platforms: an iPhone buys at the sandbox App Store and sends its signed transaction for the
     * app user id (the request ShopkeeperKit sends); the same person logs in on Android, sees it, and subscribes on
     * Play: both show together.
     */
    @Test
    fun oneAccountAcrossTheAppStoreAndPlay() = runBlocking<Unit> {
        val garden = stack.createProduct(ProductType.NON_CONSUMABLE)
        val monthly = stack.createProduct(ProductType.AUTO_RENEWABLE, duration = "P1M")
        val user = "android_user_${UUID.randomUUID().toString().take(8)}"
        val bought = stack.sandbox(
            "POST", "/sandbox/apple/transactions",
            jsonOf(
                "bundle_id" to stack.packageName, "product_id" to "${stack.packageName}.$garden", "type" to "Non-Consumable",
                "quantity" to 1, "environment" to "Sandbox", "app_account_token" to AppAccountToken.uuid(user).toString(),
                "storefront" to "USA"
            )
        ) ?: throw AssertionError("no App Store transaction")
        val iphone = stack.api().submitPurchase(PurchaseProof.SignedTransaction(bought.string("signed_transaction")), user, "iphone-1", "2.0")
        assertTrue(iphone.customer?.entitlements?.get(garden)?.active == true)

        val phone = stack.device()
        assertTrue(phone.shopkeeper.logIn(user).entitlements[garden]?.active == true)
        val both = delivered(phone.shopkeeper.purchase(monthly))
        assertEquals(user, both.appUserId)
        assertTrue(both.activeEntitlements.containsAll(listOf(garden, monthly)))
        assertEquals(setOf("app_store", "play_store"), both.entitlements.filterKeys { it == garden || it == monthly }.values.map { it.store?.rawValue }.toSet())
    }
}
