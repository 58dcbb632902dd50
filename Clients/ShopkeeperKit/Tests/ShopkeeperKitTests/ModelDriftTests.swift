import Foundation
import Testing

@testable import ShopkeeperKit

/// The package's models against `docs/openapi.yaml`: every example of a schema the package models decodes, and
/// encodes back to the same JSON (so a field the document has and a model lacks fails too, not just a missing
/// required one); every operation the package calls answers with a modeled schema.
@Suite struct ModelDriftTests {
    /// Schema name to "decode with the model, encode it back".
    static let models: [String: @Sendable (Data) throws -> Data] = [
        "CatalogView": roundTrip(CatalogView.self),
        "CatalogItem": roundTrip(CatalogItem.self),
        "CustomerInfo": roundTrip(CustomerInfo.self),
        "EntitlementInfo": roundTrip(EntitlementInfo.self),
        "SubscriptionInfo": roundTrip(SubscriptionInfo.self),
        "NonSubscriptionPurchase": roundTrip(NonSubscriptionPurchase.self),
        "TrialInfo": roundTrip(TrialInfo.self),
        "EligibilityInfo": roundTrip(EligibilityInfo.self),
        "StoreTransaction": roundTrip(StoreTransaction.self),
        "StoreOffer": roundTrip(StoreOffer.self),
        "TransactionOutcome": roundTrip(TransactionOutcome.self),
        "PurchaseResponse": roundTrip(PurchaseResponse.self),
        "RestoreResponse": roundTrip(RestoreResponse.self),
        "AppTransactionResult": roundTrip(AppTransactionResult.self),
        "RejectedProof": roundTrip(RejectedProof.self),
        "ReceiptValidationResult": roundTrip(ReceiptValidationResult.self),
        "ConsumeResult": roundTrip(ConsumeResult.self),
        "ContentManifest": roundTrip(ContentManifest.self),
        "ManifestFile": roundTrip(ManifestFile.self),
        "ContentResetResponse": roundTrip(ContentResetResponse.self),
        "Problem": roundTrip(Problem.self),
        "FieldProblem": roundTrip(FieldProblem.self),
        "ProductGrant": roundTrip(ProductGrant.self),
        "ProductClaimResult": roundTrip(ProductClaimResult.self),
        "OfferSignature": roundTrip(OfferSignature.self),
        "OfferingsView": roundTrip(OfferingsView.self),
        "OfferingView": roundTrip(OfferingView.self),
        "PackageView": roundTrip(PackageView.self),
        "PaywallView": roundTrip(PaywallView.self),
    ]

    /// The operations ``ShopkeeperAPI`` calls.
    static let operations: Set<String> = [
        "getCatalog", "getCustomer", "submitPurchase", "restorePurchases", "linkAlias", "consumeUnits", "startTrial",
        "getTrial", "getEligibility", "validateReceipt", "getContentManifest", "claimFreeContent", "resetContent",
        "claimFreeProduct", "signOffer", "redeemCode", "getOfferings",
    ]

    static func roundTrip<T: Codable & Sendable>(_ type: T.Type) -> @Sendable (Data) throws -> Data {
        { data in try JSONCoding.encoder().encode(try JSONCoding.decoder().decode(T.self, from: data)) }
    }

    /// JSON without `null` members (the models leave out what has no value), keys sorted.
    static func canonical(_ value: Any) throws -> String {
        func strip(_ value: Any) -> Any? {
            if value is NSNull { return nil }
            if let object = value as? [String: Any] { return object.compactMapValues(strip) }
            if let array = value as? [Any] { return array.map { strip($0) ?? NSNull() } }
            return value
        }
        let data = try JSONSerialization.data(
            withJSONObject: strip(value) ?? NSNull(), options: [.sortedKeys, .fragmentsAllowed])
        return String(decoding: data, as: UTF8.self)
    }

    @Test func everyExampleOfAModeledSchemaDecodesAndEncodesBackUnchanged() throws {
        let document = try OpenAPIDocument.load()
        let examples = OpenAPIDocument.examples(in: document)
        var checked: Set<String> = []
        for example in examples {
            guard let roundTrip = Self.models[example.schema] else { continue }
            let data = try JSONSerialization.data(withJSONObject: example.value, options: [.fragmentsAllowed])
            let back: Data
            do {
                back = try roundTrip(data)
            } catch {
                Issue.record("\(example.location): \(example.schema) does not decode: \(error)")
                continue
            }
            let expected = try Self.canonical(example.value)
            let actual = try Self.canonical(try JSONSerialization.jsonObject(with: back, options: [.fragmentsAllowed]))
            #expect(actual == expected, "\(example.location): the \(example.schema) model drops or changes fields")
            checked.insert(example.schema)
        }
        // The document's examples of what an app reads most must be among those checked.
        for schema in [
            "CatalogView", "CustomerInfo", "PurchaseResponse", "ReceiptValidationResult", "Problem", "OfferingsView",
        ] {
            #expect(checked.contains(schema), "no example of \(schema) was checked")
        }
    }

    @Test func everyOperationThePackageCallsAnswersWithAModeledSchema() throws {
        let document = try OpenAPIDocument.load()
        let schemas = OpenAPIDocument.successSchemas(of: Self.operations, in: document)
        #expect(Set(schemas.keys) == Self.operations, "operations missing from the document")
        for (operation, names) in schemas {
            for name in names {
                #expect(Self.models[name] != nil, "\(operation) answers \(name), which the package does not model")
            }
        }
    }
}
