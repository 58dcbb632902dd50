package dev.shopkeeper.android.core

import dev.shopkeeper.android.models.BuildKind
import dev.shopkeeper.android.models.CatalogView
import dev.shopkeeper.android.models.ContentManifest
import dev.shopkeeper.android.models.ContentResetResponse
import dev.shopkeeper.android.models.ManifestFile
import dev.shopkeeper.android.models.ConsumeResult
import dev.shopkeeper.android.models.CustomerInfo
import dev.shopkeeper.android.models.EligibilityInfo
import dev.shopkeeper.android.models.OfferingsView
import dev.shopkeeper.android.models.ProductClaimResult
import dev.shopkeeper.android.models.ProofBodies
import dev.shopkeeper.android.models.PurchaseProof
import dev.shopkeeper.android.models.PurchaseResponse
import dev.shopkeeper.android.models.ReceiptValidationResult
import dev.shopkeeper.android.models.RestoreResponse
import dev.shopkeeper.android.models.StorePlatform
import dev.shopkeeper.android.models.TrialInfo
import java.net.URLEncoder
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.withContext

/**
 * The typed client of Shopkeeper's public API (`docs/openapi.yaml`), one suspending method per operation an app
 * uses. Retries `408`, `429`, `5xx` and broken connections by its [RetryPolicy] (waiting `Retry-After`), never another
 * `4xx`; caches the catalog and customer info by `ETag`; sends the customer token where a customer is named.
 * [dev.shopkeeper.android.purchases.Shopkeeper] builds the purchase flow on it; use it directly for anything else.
 */
class ShopkeeperApi(val configuration: ShopkeeperConfiguration) {
    private val exchange = HttpExchange(configuration.requestTimeoutMillis)
    private val transport = ApiTransport(configuration, exchange)

    /** How many answers were `304 Not Modified` and came from the `ETag` cache. */
    val notModifiedCount: Int
        get() = transport.cache.notModifiedCount

    /** Drops the `ETag` cache (after logging out, for instance). */
    fun clearCache() = transport.cache.clear()

    /** `GET /v1/catalog`: the shop as this build sees it (cached by `ETag`). */
    suspend fun catalog(
        platform: StorePlatform,
        appVersion: String,
        build: BuildKind,
        variant: String? = null,
        locale: String? = null
    ): CatalogView {
        val query = listOf(
            "platform" to platform.rawValue, "app_version" to appVersion, "build" to build.rawValue,
            "variant" to variant?.ifEmpty { null }, "locale" to locale?.ifEmpty { null }
        )
        return CatalogView.from(transport.send(ApiRequest("GET", "/v1/catalog", query = query, cached = true)))
    }

    /**
     * `GET /v1/offerings`: which offering to show this customer (chosen by the app's targeting rules) and every
     * offering as this build sees it, paywalls in the locale closest to [locale]. [country] is the storefront's ISO
     * 3166-1 alpha-2 code (`DE`; Play's billing config gives it): without it, rules that name countries do not match.
     * Cached by `ETag`, as the catalog is.
     */
    suspend fun offerings(
        appUserId: String,
        platform: StorePlatform,
        appVersion: String,
        build: BuildKind? = null,
        variant: String? = null,
        locale: String? = null,
        country: String? = null
    ): OfferingsView {
        val query = listOf(
            "app_user_id" to appUserId, "platform" to platform.rawValue, "app_version" to appVersion,
            "build" to build?.rawValue, "variant" to variant?.ifEmpty { null }, "locale" to locale?.ifEmpty { null },
            "country" to country?.ifEmpty { null }
        )
        return OfferingsView.from(
            transport.send(ApiRequest("GET", "/v1/offerings", query = query, customer = appUserId, cached = true))
        )
    }

    /** `GET /v1/customers/{app_user_id}`: what the customer owns now (cached by `ETag`). */
    suspend fun customerInfo(appUserId: String): CustomerInfo = CustomerInfo.from(
        transport.send(ApiRequest("GET", customerPath(appUserId), customer = appUserId, cached = true))
    )

    /** `POST /v1/purchases`: verify a store's proof (a Play purchase token) and grant what it proves. */
    suspend fun submitPurchase(proof: PurchaseProof, appUserId: String, deviceId: String?, appVersion: String?): PurchaseResponse {
        val body = ProofBodies.purchase(proof, appUserId, deviceId, appVersion)
        return PurchaseResponse.from(transport.send(ApiRequest("POST", "/v1/purchases", customer = appUserId, body = body)))
    }

    /** `POST /v1/customers/{app_user_id}/restore`: verify and grant every proof the device's store account holds. */
    suspend fun restore(appUserId: String, proofs: List<PurchaseProof>, deviceId: String?, appVersion: String?): RestoreResponse {
        val body = ProofBodies.restore(proofs, deviceId, appVersion)
        return RestoreResponse.from(
            transport.send(ApiRequest("POST", customerPath(appUserId) + "/restore", customer = appUserId, body = body))
        )
    }

    /** `POST /v1/customers/{app_user_id}/aliases`: make [alias] address this customer too. */
    suspend fun linkAlias(appUserId: String, alias: String): CustomerInfo = CustomerInfo.from(
        transport.send(
            ApiRequest("POST", customerPath(appUserId) + "/aliases", customer = appUserId, body = jsonOf("alias" to alias))
        )
    )

    /**
     * `POST /v1/customers/{app_user_id}/redeem`: move the web purchases a redemption code stands for to this customer
     * (once; the same customer may send it again, after a lost answer say). Answers the customer's info.
     */
    suspend fun redeem(appUserId: String, code: String): CustomerInfo = CustomerInfo.from(
        transport.send(ApiRequest("POST", customerPath(appUserId) + "/redeem", customer = appUserId, body = jsonOf("code" to code)))
    )

    /** `POST /v1/customers/{app_user_id}/consumables/{product_id}/consume`, exactly once per [idempotencyKey]. */
    suspend fun consume(appUserId: String, productId: String, quantity: Int, idempotencyKey: String): ConsumeResult {
        val request = ApiRequest(
            "POST", customerPath(appUserId) + "/consumables/${segment(productId)}/consume", customer = appUserId,
            headers = mapOf("Idempotency-Key" to idempotencyKey), body = jsonOf("quantity" to quantity)
        )
        return ConsumeResult.from(transport.send(request))
    }

    /** `POST /v1/customers/{app_user_id}/claims`: own a product the catalog marks free (once per customer). */
    suspend fun claimFreeProduct(appUserId: String, productId: String): ProductClaimResult = ProductClaimResult.from(
        transport.send(
            ApiRequest(
                "POST", customerPath(appUserId) + "/claims", customer = appUserId, body = jsonOf("product_id" to productId)
            )
        )
    )

    /** `POST /v1/customers/{app_user_id}/trial`: start the app's free trial on this device (or get the one running). */
    suspend fun startTrial(appUserId: String, deviceId: String, productId: String?): TrialInfo = TrialInfo.from(
        transport.send(
            ApiRequest(
                "POST", customerPath(appUserId) + "/trial", customer = appUserId,
                body = jsonOf("device_id" to deviceId, "product_id" to productId)
            )
        )
    )

    /** `GET /v1/customers/{app_user_id}/trial`. */
    suspend fun trial(appUserId: String): TrialInfo =
        TrialInfo.from(transport.send(ApiRequest("GET", customerPath(appUserId) + "/trial", customer = appUserId)))

    /** `GET /v1/customers/{app_user_id}/eligibility`: may an intro offer or trial of the product be offered? */
    suspend fun eligibility(appUserId: String, productId: String, deviceId: String?): EligibilityInfo {
        val query = listOf("product_id" to productId, "device_id" to deviceId)
        return EligibilityInfo.from(
            transport.send(ApiRequest("GET", customerPath(appUserId) + "/eligibility", query = query, customer = appUserId))
        )
    }

    /** `POST /v1/receipts/validate`: what a saved proof is worth now; records nothing. */
    suspend fun validate(proof: PurchaseProof): ReceiptValidationResult =
        ReceiptValidationResult.from(transport.send(ApiRequest("POST", "/v1/receipts/validate", body = proof.fields())))

    /** `GET /v1/content/{product_id}`: the manifest of the product's pack, when the customer is entitled now. */
    suspend fun contentManifest(productId: String, appUserId: String, deviceId: String, appVersion: String?): ContentManifest {
        val query = listOf("app_user_id" to appUserId, "device_id" to deviceId, "app_version" to appVersion)
        return ContentManifest.from(
            transport.send(ApiRequest("GET", "/v1/content/${segment(productId)}", query = query, customer = appUserId))
        )
    }

    /** `POST /v1/content/{product_id}/claim`: claim a free product and get its manifest. */
    suspend fun claimFreeContent(productId: String, appUserId: String, deviceId: String, appVersion: String?): ContentManifest {
        val body = jsonOf("app_user_id" to appUserId, "device_id" to deviceId, "app_version" to appVersion)
        return ContentManifest.from(
            transport.send(ApiRequest("POST", "/v1/content/${segment(productId)}/claim", customer = appUserId, body = body))
        )
    }

    /** `POST /v1/customers/{app_user_id}/content/reset`: forget this device's downloads; fresh manifests. */
    suspend fun resetContent(appUserId: String, deviceId: String, appVersion: String?): ContentResetResponse {
        val body = jsonOf("device_id" to deviceId, "app_version" to appVersion)
        return ContentResetResponse.from(
            transport.send(ApiRequest("POST", customerPath(appUserId) + "/content/reset", customer = appUserId, body = body))
        )
    }

    /** The absolute URL of a manifest file's (possibly relative) download URL. */
    fun downloadUrl(file: ManifestFile): String = java.net.URL(java.net.URL(configuration.base + "/"), file.url).toString()

    /**
     * One ranged download request (no API key: the URL's signature is the proof), retried like API calls; answers a
     * `200` or `206`, throws the problem of anything else.
     */
    internal suspend fun download(url: String, headers: Map<String, String>): HttpAnswer =
        withRetries(configuration.retryPolicy) {
            val answer = withContext(Dispatchers.IO) { exchange.send("GET", url, headers, null) }
            if (answer.status == 200 || answer.status == 206) answer else throw ApiTransport.failure(answer)
        }

    companion object {
        /** A path or query value, percent-encoded (an app user id may hold `/`, `?`, `+` or spaces). */
        fun segment(value: String): String = URLEncoder.encode(value, "UTF-8").replace("+", "%20")

        private fun customerPath(appUserId: String) = "/v1/customers/${segment(appUserId)}"
    }
}
