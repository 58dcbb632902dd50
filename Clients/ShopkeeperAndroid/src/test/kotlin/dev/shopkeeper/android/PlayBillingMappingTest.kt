package dev.shopkeeper.android

import dev.shopkeeper.android.models.PlayPurchaseKind
import dev.shopkeeper.android.models.ProductType
import dev.shopkeeper.android.models.PurchaseProof
import dev.shopkeeper.android.purchases.PlayBillingMapping
import dev.shopkeeper.android.purchases.PlayBillingMapping.LaunchVerdict
import dev.shopkeeper.android.support.AppAccountToken
import org.junit.Assert.assertEquals
import org.junit.Assert.assertNull
import org.junit.Test

/** The Play Billing device store's rules, as the functions it maps Play's values with. */
class PlayBillingMappingTest {
    private val token = AppAccountToken.obfuscatedAccountId("alice")

    @Test
    fun aPurchasedPurchaseIsSentWithItsTokenProductKindAndBuyer() {
        val transaction = PlayBillingMapping.transaction(
            1, "purchase-token", "GPA.1234-5678", listOf("pro_yearly"), token, "subs", null
        ) ?: throw AssertionError("not mapped")
        assertEquals("GPA.1234-5678", transaction.id)
        assertEquals(PurchaseProof.PlayPurchase("purchase-token", "pro_yearly", PlayPurchaseKind.SUBSCRIPTION), transaction.proof)
        assertEquals(AppAccountToken.uuid("alice"), transaction.appAccountToken)
        assertEquals(ProductType.AUTO_RENEWABLE, transaction.productType)
        val coins = PlayBillingMapping.transaction(1, "t2", null, listOf("coins"), null, "inapp", ProductType.CONSUMABLE)
        assertEquals("t2", coins?.id)
        assertEquals(PlayPurchaseKind.PRODUCT, (coins?.proof as PurchaseProof.PlayPurchase).kind)
        assertEquals(ProductType.CONSUMABLE, coins.productType)
        assertNull(coins.appAccountToken)
    }

    @Test
    fun aPendingOrUnsettledPurchaseIsNotSent() {
        for (state in listOf(0, PlayBillingMapping.PENDING, 9)) {
            assertNull(PlayBillingMapping.transaction(state, "t", "GPA.1", listOf("pro"), token, "inapp", null))
        }
        assertNull(PlayBillingMapping.transaction(1, "t", "GPA.1", emptyList(), token, "inapp", null))
    }

    @Test
    fun anObfuscatedAccountIdThatIsNoTokenNamesNobody() {
        val other = PlayBillingMapping.transaction(1, "t", "GPA.1", listOf("pro"), "user-42", "inapp", null)
        assertNull(other?.appAccountToken)
    }

    @Test
    fun productTypesAndResponseCodes() {
        assertEquals("subs", PlayBillingMapping.billingProductType(ProductType.AUTO_RENEWABLE))
        for (type in listOf(ProductType.CONSUMABLE, ProductType.NON_CONSUMABLE, ProductType.NON_RENEWING)) {
            assertEquals("inapp", PlayBillingMapping.billingProductType(type))
        }
        assertEquals(LaunchVerdict.Proceed, PlayBillingMapping.launchVerdict(0))
        assertEquals(LaunchVerdict.Cancelled, PlayBillingMapping.launchVerdict(1))
        assertEquals(LaunchVerdict.AlreadyOwned, PlayBillingMapping.launchVerdict(7))
        for (code in listOf(-3, -1, 2, 6, 12)) assertEquals(LaunchVerdict.Failed(code, true), PlayBillingMapping.launchVerdict(code))
        for (code in listOf(-2, 3, 4, 5, 8)) assertEquals(LaunchVerdict.Failed(code, false), PlayBillingMapping.launchVerdict(code))
    }
}
