package dev.shopkeeper.android.models

import dev.shopkeeper.android.core.JsonObject
import dev.shopkeeper.android.core.ShopkeeperException
import dev.shopkeeper.android.core.jsonOf

/** A store's proof of a purchase, as the device has it (schema `StoreProof`). */
sealed class PurchaseProof {
    /** A Google Play purchase token (`Purchase.getPurchaseToken()`) with its Play product id. */
    data class PlayPurchase(val token: String, val productId: String, val kind: PlayPurchaseKind) : PurchaseProof()

    /** A StoreKit 2 signed transaction (a purchase made on an Apple device, restored here). */
    data class SignedTransaction(val jws: String) : PurchaseProof()

    /** A StoreKit 1 app receipt, base64. */
    data class Receipt(val data: String) : PurchaseProof()

    /** The proof's fields, flat, as `POST /v1/purchases` and `POST /v1/receipts/validate` take them. */
    fun fields(): Map<String, Any?> = when (this) {
        is PlayPurchase -> jsonOf("purchase_token" to token, "product_id" to productId, "purchase_kind" to kind.rawValue)
        is SignedTransaction -> jsonOf("signed_transaction" to jws)
        is Receipt -> jsonOf("receipt_data" to data)
    }

    companion object {
        /** A proof from its flat fields (as [fields] writes them; the purchase queue's file). */
        fun from(json: JsonObject): PurchaseProof {
            json.stringOrNull("purchase_token")?.let {
                val kind = json.stringOrNull("purchase_kind")?.let(::PlayPurchaseKind) ?: PlayPurchaseKind.PRODUCT
                return PlayPurchase(it, json.string("product_id"), kind)
            }
            json.stringOrNull("signed_transaction")?.let { return SignedTransaction(it) }
            json.stringOrNull("receipt_data")?.let { return Receipt(it) }
            throw ShopkeeperException.Decoding("${json.pointer}: no proof")
        }
    }
}

/** Bodies of the requests that carry proofs (schemas `PurchaseRequest`, `RestoreRequest`). */
object ProofBodies {
    /** `POST /v1/purchases`: the proof's fields, flat, and who presents it. */
    fun purchase(proof: PurchaseProof, appUserId: String, deviceId: String?, appVersion: String?): Map<String, Any?> =
        LinkedHashMap(proof.fields()).apply {
            putAll(jsonOf("app_user_id" to appUserId, "device_id" to deviceId, "app_version" to appVersion))
        }

    /** `POST /v1/customers/{app_user_id}/restore`: Play tokens in `purchase_tokens`, JWSs in `signed_transactions`. */
    fun restore(proofs: List<PurchaseProof>, deviceId: String?, appVersion: String?): Map<String, Any?> {
        val signed = proofs.filterIsInstance<PurchaseProof.SignedTransaction>().map { it.jws }
        val play = proofs.filterIsInstance<PurchaseProof.PlayPurchase>().map { it.fields() }
        val receipt = proofs.filterIsInstance<PurchaseProof.Receipt>().lastOrNull()?.data
        return jsonOf(
            "device_id" to deviceId, "app_version" to appVersion,
            "signed_transactions" to signed.ifEmpty { null }, "purchase_tokens" to play.ifEmpty { null },
            "receipt_data" to receipt
        )
    }
}
