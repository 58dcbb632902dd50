package dev.shopkeeper.android

import dev.shopkeeper.android.core.Json
import dev.shopkeeper.android.core.JsonObject
import dev.shopkeeper.android.models.CatalogItem
import dev.shopkeeper.android.models.CatalogView
import dev.shopkeeper.android.models.ConsumeResult
import dev.shopkeeper.android.models.ContentManifest
import dev.shopkeeper.android.models.ContentResetResponse
import dev.shopkeeper.android.models.ManifestFile
import dev.shopkeeper.android.models.CustomerInfo
import dev.shopkeeper.android.models.EligibilityInfo
import dev.shopkeeper.android.models.EntitlementInfo
import dev.shopkeeper.android.models.FieldProblem
import dev.shopkeeper.android.models.NonSubscriptionPurchase
import dev.shopkeeper.android.models.OfferingView
import dev.shopkeeper.android.models.OfferingsView
import dev.shopkeeper.android.models.PackageView
import dev.shopkeeper.android.models.PaywallView
import dev.shopkeeper.android.models.Problem
import dev.shopkeeper.android.models.ProductClaimResult
import dev.shopkeeper.android.models.ProductGrant
import dev.shopkeeper.android.models.ProofBodies
import dev.shopkeeper.android.models.PurchaseProof
import dev.shopkeeper.android.models.PurchaseResponse
import dev.shopkeeper.android.models.ReceiptValidationResult
import dev.shopkeeper.android.models.RejectedProof
import dev.shopkeeper.android.models.RestoreResponse
import dev.shopkeeper.android.models.StoreOffer
import dev.shopkeeper.android.models.StoreTransaction
import dev.shopkeeper.android.models.SubscriptionInfo
import dev.shopkeeper.android.models.TransactionOutcome
import dev.shopkeeper.android.models.TrialInfo
import dev.shopkeeper.android.models.AppTransactionResult
import java.io.File
import java.util.TreeMap
import org.junit.Assert.assertEquals
import org.junit.Assert.assertTrue
import org.junit.Test

/**
 * The client's models against `docs/openapi.yaml` (as JSON: the check script converts it with PyYAML, as
 * ShopkeeperKit's drift test does): every example of a schema the client models decodes, and encodes back to the
 * same JSON (so a field the document has and a model lacks fails too, not just a missing required one); every
 * operation the client calls answers with a modeled schema; the document's Play purchase request is what the client
 * sends.
 */
class ModelDriftTest {
    private val models: Map<String, (JsonObject) -> Map<String, Any?>> = mapOf(
        "CatalogView" to { json: JsonObject -> CatalogView.from(json).toJson() },
        "CatalogItem" to { json: JsonObject -> CatalogItem.from(json).toJson() },
        "CustomerInfo" to { json: JsonObject -> CustomerInfo.from(json).toJson() },
        "EntitlementInfo" to { json: JsonObject -> EntitlementInfo.from(json).toJson() },
        "SubscriptionInfo" to { json: JsonObject -> SubscriptionInfo.from(json).toJson() },
        "NonSubscriptionPurchase" to { json: JsonObject -> NonSubscriptionPurchase.from(json).toJson() },
        "TrialInfo" to { json: JsonObject -> TrialInfo.from(json).toJson() },
        "EligibilityInfo" to { json: JsonObject -> EligibilityInfo.from(json).toJson() },
        "StoreTransaction" to { json: JsonObject -> StoreTransaction.from(json).toJson() },
        "StoreOffer" to { json: JsonObject -> StoreOffer.from(json).toJson() },
        "TransactionOutcome" to { json: JsonObject -> TransactionOutcome.from(json).toJson() },
        "PurchaseResponse" to { json: JsonObject -> PurchaseResponse.from(json).toJson() },
        "RestoreResponse" to { json: JsonObject -> RestoreResponse.from(json).toJson() },
        "AppTransactionResult" to { json: JsonObject -> AppTransactionResult.from(json).toJson() },
        "RejectedProof" to { json: JsonObject -> RejectedProof.from(json).toJson() },
        "ReceiptValidationResult" to { json: JsonObject -> ReceiptValidationResult.from(json).toJson() },
        "ConsumeResult" to { json: JsonObject -> ConsumeResult.from(json).toJson() },
        "Problem" to { json: JsonObject -> Problem.from(json).toJson() },
        "FieldProblem" to { json: JsonObject -> FieldProblem.from(json).toJson() },
        "ProductGrant" to { json: JsonObject -> ProductGrant.from(json).toJson() },
        "ProductClaimResult" to { json: JsonObject -> ProductClaimResult.from(json).toJson() },
        "ContentManifest" to { json: JsonObject -> ContentManifest.from(json).toJson() },
        "ManifestFile" to { json: JsonObject -> ManifestFile.from(json).toJson() },
        "ContentResetResponse" to { json: JsonObject -> ContentResetResponse.from(json).toJson() },
        "OfferingsView" to { json: JsonObject -> OfferingsView.from(json).toJson() },
        "OfferingView" to { json: JsonObject -> OfferingView.from(json).toJson() },
        "PackageView" to { json: JsonObject -> PackageView.from(json).toJson() },
        "PaywallView" to { json: JsonObject -> PaywallView.from(json).toJson() }
    )

    /** Modeled schemas the document gives no example of: checked with an instance built from the schema instead. */
    private val withoutExamples = listOf("OfferingsView", "OfferingView", "PackageView", "PaywallView")

    /** The operations [dev.shopkeeper.android.core.ShopkeeperApi] calls. */
    private val operations = setOf(
        "getCatalog", "getCustomer", "submitPurchase", "restorePurchases", "linkAlias", "consumeUnits", "startTrial",
        "getTrial", "getEligibility", "validateReceipt", "claimFreeProduct", "getContentManifest", "claimFreeContent",
        "resetContent", "redeemCode", "getOfferings"
    )

    private class Example(val location: String, val schema: String, val value: Any?)

    private val document: Map<String, Any?> by lazy {
        val path = System.getenv("SHOPKEEPER_OPENAPI_JSON")
            ?: throw IllegalStateException("SHOPKEEPER_OPENAPI_JSON names docs/openapi.yaml as JSON (the check script sets it)")
        map(Json.parse(File(path).readText()))
    }

    @Suppress("UNCHECKED_CAST")
    private fun map(value: Any?): Map<String, Any?> = value as? Map<String, Any?> ?: emptyMap()

    private fun refName(value: Any?): String? = (map(value)["\$ref"] as? String)?.substringAfterLast('/')

    private fun resolve(value: Any?, table: Map<String, Any?>): Map<String, Any?> {
        val name = refName(value) ?: return map(value)
        return map(table[name])
    }

    /** Every example of a response or a component schema, with the schema it belongs to. */
    private fun examples(): List<Example> {
        val components = map(document["components"])
        val namedExamples = map(components["examples"])
        val namedResponses = map(components["responses"])
        val found = ArrayList<Example>()
        fun collect(content: Any?, location: String) {
            for ((mediaType, media) in map(content)) {
                val schema = refName(map(media)["schema"]) ?: continue
                if (map(media).containsKey("example")) found.add(Example("$location $mediaType", schema, map(media)["example"]))
                for ((name, example) in map(map(media)["examples"])) {
                    val value = resolve(example, namedExamples)
                    if (value.containsKey("value")) found.add(Example("$location $mediaType $name", schema, value["value"]))
                }
            }
        }
        for ((path, item) in map(document["paths"])) {
            for ((method, operation) in map(item)) {
                for ((status, response) in map(map(operation)["responses"])) {
                    collect(resolve(response, namedResponses)["content"], "$method $path $status")
                }
            }
        }
        for ((name, schema) in map(components["schemas"])) {
            val fields = map(schema)
            if (fields.containsKey("example")) found.add(Example("schema $name", name, fields["example"]))
            if (fields["type"] == "object" || fields.containsKey("properties")) {
                for (example in fields["examples"] as? List<*> ?: emptyList<Any>()) found.add(Example("schema $name", name, example))
            }
        }
        return found
    }

    /** JSON without `null` members (the models leave out what has no value), keys sorted. */
    private fun canonical(value: Any?): String {
        fun strip(value: Any?): Any? = when (value) {
            is Map<*, *> -> TreeMap<String, Any?>().apply {
                for ((key, item) in value) if (item != null) put(key.toString(), strip(item))
            }
            is List<*> -> value.map { strip(it) }
            is Int -> value.toLong()
            else -> value
        }
        return Json.write(strip(value))
    }

    @Test
    fun everyExampleOfAModeledSchemaDecodesAndEncodesBackUnchanged() {
        val checked = HashSet<String>()
        val failures = ArrayList<String>()
        var count = 0
        for (example in examples()) {
            val roundTrip = models[example.schema] ?: continue
            val back = try {
                roundTrip(JsonObject.of(example.value))
            } catch (error: Exception) {
                failures.add("${example.location}: ${example.schema} does not decode: ${error.message}")
                continue
            }
            if (canonical(back) != canonical(example.value)) {
                failures.add("${example.location}: the ${example.schema} model drops or changes fields:\n  document ${canonical(example.value)}\n  model    ${canonical(back)}")
            }
            checked.add(example.schema)
            count++
        }
        println("drift: $count examples of ${checked.size} modeled schemas (${checked.sorted().joinToString()}) decode and encode back unchanged")
        assertTrue(failures.joinToString("\n"), failures.isEmpty())
        for (schema in listOf("CatalogView", "CustomerInfo", "PurchaseResponse", "ReceiptValidationResult", "Problem")) {
            assertTrue("no example of $schema was checked", schema in checked)
        }
        assertTrue("only $count examples checked", count >= 20)
    }

    /**
     * An instance of [name] with every property the document names (one item per array, one member per map), so a
     * property the model lacks, or reads under another name, fails the round trip as an example's would.
     */
    private fun instance(name: String, depth: Int = 0): Any? {
        val schemas = map(map(document["components"])["schemas"])
        fun build(schema: Map<String, Any?>, depth: Int): Any? {
            refName(schema)?.let { return instance(it, depth + 1) }
            (schema["enum"] as? List<*>)?.let { return it.first() }
            for (choice in listOf("allOf", "oneOf", "anyOf")) {
                (schema[choice] as? List<*>)?.let { return build(map(it.first()), depth) }
            }
            return when (schema["type"]) {
                "object" -> {
                    val built = LinkedHashMap<String, Any?>()
                    for ((property, value) in map(schema["properties"])) built[property] = build(map(value), depth)
                    schema["additionalProperties"]?.let { extra -> if (extra is Map<*, *>) built["key"] = build(map(extra), depth) }
                    built
                }
                "array" -> listOf(build(map(schema["items"]), depth))
                "integer" -> 1L
                "number" -> 1.5
                "boolean" -> true
                else -> when (schema["format"]) {
                    "date-time" -> "2026-03-01T12:00:00Z"
                    "uri" -> "https://shopkeeper.dev/a"
                    else -> "text"
                }
            }
        }
        check(depth < 8) { "$name nests too deep" }
        val schema = map(schemas[name])
        check(schema.isNotEmpty()) { "no schema $name in the document" }
        return build(schema, depth)
    }

    @Test
    fun schemasWithoutExamplesRoundTripAnInstanceOfEveryProperty() {
        val failures = ArrayList<String>()
        for (name in withoutExamples) {
            val value = instance(name)
            val roundTrip = models.getValue(name)
            val back = try {
                roundTrip(JsonObject.of(value))
            } catch (error: Exception) {
                failures.add("$name does not decode its schema's instance: ${error.message}")
                continue
            }
            if (canonical(back) != canonical(value)) {
                failures.add("the $name model drops or changes fields:\n  document ${canonical(value)}\n  model    ${canonical(back)}")
            }
            // What the schema requires, the model requires too.
            val required = map(map(map(document["components"])["schemas"])[name])["required"] as? List<*> ?: emptyList<Any>()
            for (field in required.filterIsInstance<String>()) {
                val without = LinkedHashMap(map(value)).apply { remove(field) }
                try {
                    roundTrip(JsonObject.of(without))
                    failures.add("$name decodes without its required $field")
                } catch (error: Exception) {
                }
            }
        }
        println("drift: ${withoutExamples.size} schemas without examples (${withoutExamples.joinToString()}) round-trip an instance of every property")
        assertTrue(failures.joinToString("\n"), failures.isEmpty())
    }

    @Test
    fun everyOperationTheClientCallsAnswersWithAModeledSchema() {
        val found = HashMap<String, MutableList<String>>()
        val namedResponses = map(map(document["components"])["responses"])
        for ((_, item) in map(document["paths"])) {
            for ((_, operation) in map(item)) {
                val id = map(operation)["operationId"] as? String ?: continue
                if (id !in operations) continue
                for ((status, response) in map(map(operation)["responses"])) {
                    if (!status.startsWith("2")) continue
                    val schema = map(map(resolve(response, namedResponses)["content"])["application/json"])["schema"]
                    refName(schema)?.let { found.getOrPut(id) { ArrayList() }.add(it) }
                }
            }
        }
        assertEquals("operations missing from the document", operations, found.keys)
        for ((operation, names) in found) {
            for (name in names) assertTrue("$operation answers $name, which the client does not model", name in models)
        }
    }

    /** `POST /v1/purchases`' Play example is byte for byte what the client sends for that token. */
    @Test
    fun theDocumentsPlayPurchaseRequestIsWhatTheClientSends() {
        val operation = map(map(map(document["paths"])["/v1/purchases"])["post"])
        val media = map(map(map(operation["requestBody"])["content"])["application/json"])
        val play = map(media["examples"]).values.map { map(map(it)["value"]) }.filter { it.containsKey("purchase_token") }
        assertTrue("no Play example", play.isNotEmpty())
        for (example in play) {
            val proof = PurchaseProof.from(JsonObject.of(example))
            assertTrue(proof is PurchaseProof.PlayPurchase)
            val sent = ProofBodies.purchase(
                proof, example["app_user_id"] as String, example["device_id"] as String?, example["app_version"] as String?
            )
            assertEquals(canonical(example), canonical(sent))
        }
    }
}
