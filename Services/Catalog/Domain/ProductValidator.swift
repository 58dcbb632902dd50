import Foundation
import ShopkeeperHTTP
import ShopkeeperModels

/// The rules a product must follow beyond its JSON shape, reported all at once with JSON pointers.
enum ProductValidator {
    /// Problems of one product; `pointer` locates it in the request body (`""` for a lone product).
    static func problems(of product: Product, at pointer: String = "") -> [FieldProblem] {
        var problems: [FieldProblem] = []
        func add(_ field: String, _ detail: String) {
            problems.append(FieldProblem(pointer: "\(pointer)/\(field)", detail: detail))
        }

        if !isIdentifier(product.productID, maxLength: 100) {
            add("product_id", "must be 1-100 letters, digits, '.', '_' or '-'")
        }
        for (platform, storeID) in product.storeProductIDs.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            if storeID.isEmpty || storeID.count > 200 || storeID.contains(where: \.isWhitespace) {
                add("store_product_ids/\(platform.rawValue)", "must be 1-200 characters without spaces")
            } else if platform == .stripe && !storeID.hasPrefix("price_") {
                // Checkout sells a price, not a Stripe product (`prod_...`): the common mix-up is caught here.
                add("store_product_ids/stripe", "must be a Stripe price id (price_...)")
            }
        }
        switch product.type {
        case .consumable:
            if let quantity = product.consumableQuantity {
                if !(1...1_000_000).contains(quantity) { add("consumable_quantity", "must be from 1 to 1000000") }
            } else {
                add("consumable_quantity", "is required for consumables (units credited per purchase)")
            }
        default:
            if product.consumableQuantity != nil { add("consumable_quantity", "is only for consumables") }
        }
        switch product.type {
        case .nonRenewing:
            if product.duration == nil { add("duration", "is required for non-renewing subscriptions (e.g. P1Y)") }
        case .consumable, .nonConsumable:
            if product.duration != nil { add("duration", "is only for subscriptions") }
            if product.trialDuration != nil { add("trial_duration", "is only for subscriptions") }
        case .autoRenewable:
            break
        }
        if product.free && product.type == .autoRenewable {
            add("free", "an auto-renewable subscription cannot be free; use a trial instead")
        }
        if product.storeProductIDs.isEmpty && !product.free && product.includedInVariants.isEmpty {
            add(
                "store_product_ids",
                "needs at least one store product id unless the product is free or included in a variant")
        }
        for (index, variant) in product.includedInVariants.enumerated() where !isIdentifier(variant, maxLength: 64) {
            add("included_in_variants/\(index)", "must be 1-64 letters, digits, '.', '_' or '-'")
        }
        if Set(product.includedInVariants).count != product.includedInVariants.count {
            add("included_in_variants", "must not repeat a variant")
        }
        if product.grandfatheredBelowVersion != nil && product.type != .nonConsumable {
            add("grandfathered_below_version", "is only for non-consumables (owned once, for good)")
        }
        for (index, entitlement) in product.entitlements.enumerated() where !isIdentifier(entitlement, maxLength: 100) {
            add("entitlements/\(index)", "must be 1-100 letters, digits, '.', '_' or '-'")
        }
        if Set(product.entitlements).count != product.entitlements.count {
            add("entitlements", "must not repeat an entitlement")
        }
        if let group = product.group, !isIdentifier(group, maxLength: 100) {
            add("group", "must be 1-100 letters, digits, '.', '_' or '-'")
        }
        if !(-1_000_000...1_000_000).contains(product.sortOrder) {
            add("sort_order", "must be from -1000000 to 1000000")
        }
        if product.localizations.isEmpty {
            add("localizations", "needs at least one locale")
        } else if product.localizations[product.defaultLocale] == nil {
            add("default_locale", "must be one of the keys of localizations")
        }
        for (locale, localization) in product.localizations.sorted(by: { $0.key < $1.key }) {
            let base = "localizations/\(locale)"
            if !LocaleMatcher.isValidTag(locale) {
                add(base, "is not a locale tag such as en, de-AT or pt_BR")
            }
            if localization.name.trimmingCharacters(in: .whitespaces).isEmpty || localization.name.count > 200 {
                add("\(base)/name", "must be 1-200 characters")
            }
            if let description = localization.description, description.count > 4000 {
                add("\(base)/description", "must be at most 4000 characters")
            }
            if let url = localization.descriptionURL, !isWebURL(url) {
                add("\(base)/description_url", "must be an http(s) URL")
            }
            for (index, url) in localization.screenshotURLs.enumerated() where !isWebURL(url) {
                add("\(base)/screenshot_urls/\(index)", "must be an http(s) URL")
            }
            if localization.screenshotURLs.count > 20 {
                add("\(base)/screenshot_urls", "must have at most 20 entries")
            }
            if let hint = localization.priceHint, hint.count > 32 {
                add("\(base)/price_hint", "must be at most 32 characters")
            }
        }
        return problems
    }

    /// Problems of a whole catalog document, including ids and store ids used twice.
    static func problems(of document: CatalogDocument) -> [FieldProblem] {
        var problems: [FieldProblem] = []
        var firstIndex: [String: Int] = [:]
        var storeOwners: [String: Int] = [:]
        for (index, product) in document.products.enumerated() {
            problems += Self.problems(of: product, at: "/products/\(index)")
            if let first = firstIndex[product.productID] {
                problems.append(
                    FieldProblem(
                        pointer: "/products/\(index)/product_id", detail: "repeats /products/\(first)/product_id")
                )
            } else {
                firstIndex[product.productID] = index
            }
            for (platform, storeID) in product.storeProductIDs.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
                let key = "\(platform.rawValue)\u{0}\(storeID)"
                if let owner = storeOwners[key], owner != index {
                    problems.append(
                        FieldProblem(
                            pointer: "/products/\(index)/store_product_ids/\(platform.rawValue)",
                            detail: "is also used by /products/\(owner)"
                        )
                    )
                } else {
                    storeOwners[key] = index
                }
            }
        }
        if document.products.count > 10_000 {
            problems.append(FieldProblem(pointer: "/products", detail: "must have at most 10000 products"))
        }
        return problems
    }

    static func isIdentifier(_ text: String, maxLength: Int) -> Bool {
        guard (1...maxLength).contains(text.utf8.count) else { return false }
        return text.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a)
                || byte == 0x2e || byte == 0x5f || byte == 0x2d
        }
    }

    static func isWebURL(_ text: String) -> Bool {
        guard text.count <= 2000, let url = URL(string: text), let scheme = url.scheme?.lowercased(),
            scheme == "https" || scheme == "http", let host = url.host, !host.isEmpty
        else { return false }
        return true
    }
}
