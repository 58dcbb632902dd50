import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import ShopkeeperModels
import ShopkeeperTestSupport
import Testing

@testable import Catalog

/// Offerings and rules written through the catalog's admin API into a real PostgreSQL, and read back as a build sees
/// them: SQL's rules (one default, products and offerings in use) hold, dry runs change nothing, bad input is a 4xx
/// problem.
@Suite struct OfferingAdminTests {
    static let paywall = Paywall(
        layout: "two_column", colors: ["accent": "#2E7D32"], imageURLs: ["header": "https://example.com/h.png"],
        defaultLocale: "en",
        localizations: [
            "en": .init(title: "Grow more", features: ["Rare seeds"], callToAction: "Join"),
            "de": .init(title: "Mehr wachsen", features: ["Seltene Samen"]),
        ])

    static func offering(_ id: String, default isDefault: Bool = false, products: [String]) -> Offering {
        Offering(
            offeringID: id, isDefault: isDefault,
            packages: products.map { OfferingPackage(packageID: "$\($0)", productID: $0) }, paywall: paywall)
    }

    static func document(_ offerings: [Offering], rules: [TargetingRule] = []) throws -> Data {
        try TestJSON.encode(OfferingsDocument(offerings: offerings, rules: rules))
    }

    func seed(_ harness: CatalogHarness) async throws {
        var hidden = Fixtures.product("hidden")
        hidden.reviewState = .waitingForReview
        #expect(
            try await harness.importCatalog([Fixtures.product("club"), Fixtures.product("year"), hidden]).status == .ok)
    }

    @Test func aDocumentIsServedByRuleOrDefaultWithWhatTheBuildMaySee() async throws {
        try await CatalogHarness.run { harness in
            try await seed(harness)
            let document = try Self.document(
                [
                    Self.offering("standard", default: true, products: ["club", "hidden"]),
                    Self.offering("germany", products: ["year"]),
                ],
                rules: [TargetingRule(ruleID: "de", offeringID: "germany", countries: ["DE"])])
            let preview = try await harness.send(.put, "/v1/admin/offerings?dry_run=true", json: document)
            #expect(preview.status == .ok)
            let previewed = try TestJSON.decode(OfferingsImportResult.self, preview.body.readableBytesView)
            #expect(previewed.offerings.created == ["germany", "standard"] && previewed.rules.created == ["de"])
            #expect(
                try await harness.offerings("app_user_id=a&platform=app_store&app_version=1.0").view.currentOfferingID
                    == nil)

            #expect(try await harness.send(.put, "/v1/admin/offerings", json: document).status == .ok)
            let (german, germanResponse) = try await harness.offerings(
                "app_user_id=a&platform=app_store&app_version=1.0&country=de&locale=de-AT")
            #expect(german.currentOfferingID == "germany" && german.ruleID == "de")
            #expect(germanResponse.headers[HTTPField.Name("x-shopkeeper-cache-ttl-ms")!] != nil)
            // Nothing of customer `a` was read: the gateway may keep one answer for every customer asking so.
            #expect(germanResponse.headers[HTTPField.Name("x-shopkeeper-cache-customer-neutral")!] == "1")
            #expect(german.offerings.first { $0.offeringID == "germany" }?.paywall?.title == "Mehr wachsen")
            // StoreKit's storefront names the country in alpha-3: the same answer, the same bytes.
            let (storeKit, storeKitResponse) = try await harness.offerings(
                "app_user_id=a&platform=app_store&app_version=1.0&country=deu&locale=de-AT")
            #expect(storeKit.currentOfferingID == "germany" && storeKit.ruleID == "de")
            #expect(storeKitResponse.headers[.eTag] == germanResponse.headers[.eTag])
            // Three letters that name no country match no rule (as two such letters do); four are refused.
            let unassigned = try await harness.offerings(
                "app_user_id=a&platform=app_store&app_version=1.0&country=XYZ&locale=de-AT")
            #expect(unassigned.view.currentOfferingID == "standard" && unassigned.view.ruleID == nil)
            let four = try await harness.send(
                .get, "/v1/offerings?app_user_id=a&platform=app_store&app_version=1.0&country=DEUT", kind: .public)
            #expect(four.status == .badRequest)
            #expect(try four.problemPointers() == ["?country"])

            let (other, response) = try await harness.offerings("app_user_id=b&platform=app_store&app_version=1.0")
            #expect(other.currentOfferingID == "standard" && other.ruleID == nil)
            let standard = try #require(other.offerings.first { $0.offeringID == "standard" })
            // A distribution build does not see a product under review: its package is left out.
            #expect(standard.packages.map(\.packageID) == ["$club"])
            #expect(standard.packages.first?.product.storeProductID == "com.test.club")
            #expect(standard.paywall?.locale == "en" && standard.paywall?.colors["accent"] == "#2E7D32")
            let development = try await harness.offerings(
                "app_user_id=b&platform=app_store&app_version=1.0&build=development")
            #expect(development.view.offerings.first { $0.offeringID == "standard" }?.packages.count == 2)

            let etag = try #require(response.headers[.eTag])
            let again = try await harness.send(
                .get, "/v1/offerings?app_user_id=c&platform=app_store&app_version=1.0", kind: .public,
                headers: [.ifNoneMatch: etag])
            #expect(again.status == .notModified)

        }
    }

    @Test func sqlHoldsTheDefaultAndWhatOfferingsUse() async throws {
        try await CatalogHarness.run { harness in
            try await seed(harness)
            // The first offering must be the default.
            let notDefault = try await harness.send(
                .post, "/v1/admin/offerings", json: try TestJSON.encode(Self.offering("a", products: ["club"])))
            #expect(notDefault.status == .conflict)
            try notDefault.expectProblem(code: "default_offering_required")

            #expect(
                try await harness.send(
                    .post, "/v1/admin/offerings",
                    json: try TestJSON.encode(Self.offering("a", default: true, products: ["club"]))
                ).status == .created)
            // A new default takes the flag from the old one.
            #expect(
                try await harness.send(
                    .put, "/v1/admin/offerings/b",
                    json: try TestJSON.encode(Self.offering("b", default: true, products: ["year"]))
                ).status == .created)
            let document = try TestJSON.decode(
                OfferingsDocument.self, try await harness.send(.get, "/v1/admin/offerings").body.readableBytesView)
            #expect(document.offerings.filter(\.isDefault).map(\.offeringID) == ["b"])

            // The default cannot be deleted while another offering exists; a dry run says so too.
            for path in ["/v1/admin/offerings/b?dry_run=true", "/v1/admin/offerings/b"] {
                let refused = try await harness.send(.delete, path)
                #expect(refused.status == .conflict)
                try refused.expectProblem(code: "default_offering_required")
            }
            // A dry run that would work changes nothing.
            #expect(try await harness.send(.delete, "/v1/admin/offerings/a?dry_run=true").status == .noContent)
            #expect(try await harness.send(.get, "/v1/admin/offerings/a").status == .ok)

            // A product an offering sells cannot be deleted; a rule's offering neither.
            let product = try await harness.send(.delete, "/v1/admin/products/year")
            #expect(product.status == .conflict)
            try product.expectProblem(code: "product_in_offering")
            let rules = try TestJSON.encode(TargetingRules(rules: [TargetingRule(ruleID: "r", offeringID: "a")]))
            #expect(try await harness.send(.put, "/v1/admin/offering-rules", json: rules).status == .ok)
            let inUse = try await harness.send(.delete, "/v1/admin/offerings/a")
            #expect(inUse.status == .conflict)
            try inUse.expectProblem(code: "offering_in_use")
        }
    }

    @Test func badInputIsAProblem() async throws {
        try await CatalogHarness.run { harness in
            try await seed(harness)
            var bad = Self.offering("x y", default: true, products: ["club", "nope"])
            bad.packages.append(
                OfferingPackage(packageID: "$club", productID: "club", storeProductIDs: [.appStore: "com.other"]))
            bad.paywall?.colors["accent"] = "green"
            let invalid = try await harness.send(.post, "/v1/admin/offerings", json: try TestJSON.encode(bad))
            #expect(invalid.status == .unprocessableContent)
            let pointers = try invalid.problemPointers()
            for pointer in [
                "/offering_id", "/packages/1/product_id", "/packages/2/package_id",
                "/packages/2/store_product_ids/app_store", "/paywall/colors/accent",
            ] {
                #expect(pointers.contains(pointer), "\(pointers)")
            }
            let unknownField = try await harness.send(
                .post, "/v1/admin/offerings", json: Data(#"{"offering_id":"a","packages":[],"colour":1}"#.utf8))
            #expect(unknownField.status.code / 100 == 4)
            // An optional field may be left out, not sent as null (the document types it without null).
            let null = try await harness.send(
                .put, "/v1/admin/offerings?dry_run=true", json: Data(#"{"offerings":[],"rules":null}"#.utf8))
            #expect(null.status == .unprocessableContent)
            let rules = try TestJSON.encode(
                TargetingRules(rules: [TargetingRule(ruleID: "r", offeringID: "missing", countries: ["de"])]))
            let badRules = try await harness.send(.put, "/v1/admin/offering-rules", json: rules)
            #expect(badRules.status == .unprocessableContent)
            #expect(try badRules.problemPointers().contains("/rules/0/countries/0"))
            let query = try await harness.send(
                .get, "/v1/offerings?platform=app_store&app_version=x&country=Germany", kind: .public)
            #expect(query.status == .badRequest)
            #expect(Set(try query.problemPointers()) == ["?app_user_id", "?app_version", "?country"])
        }
    }
}

extension CatalogHarness {
    func offerings(_ query: String) async throws -> (view: OfferingsView, response: TestResponse) {
        let response = try await send(.get, "/v1/offerings?\(query)", kind: .public)
        #expect(response.status == .ok, "\(String(buffer: response.body))")
        return (try TestJSON.decode(OfferingsView.self, response.body.readableBytesView), response)
    }
}

extension TestResponse {
    /// Checks that this is a problem document with `code`.
    func expectProblem(code: String) throws {
        #expect(headers[.contentType]?.hasPrefix("application/problem+json") == true)
        #expect(try TestJSON.object(body.readableBytesView)["code"] as? String == code, "\(String(buffer: body))")
    }

    /// The pointers of a problem's field errors.
    func problemPointers() throws -> [String] {
        let errors = try TestJSON.object(body.readableBytesView)["errors"] as? [[String: Any]] ?? []
        return errors.compactMap { $0["pointer"] as? String }
    }
}
