import Foundation
import ShopkeeperHTTP
import ShopkeeperModels

/// The rules offerings and targeting rules follow beyond their JSON shape, reported all at once with JSON pointers.
/// What SQL also holds (one default, products and offerings that exist) is checked here first for a clear pointer.
enum OfferingValidator {
    /// Problems of one offering against the app's `products`; `pointer` locates it in the request body.
    static func problems(of offering: Offering, products: [String: Product], at pointer: String = "") -> [FieldProblem]
    {
        var problems: [FieldProblem] = []
        func add(_ field: String, _ detail: String) {
            problems.append(FieldProblem(pointer: "\(pointer)/\(field)", detail: detail))
        }
        if !ProductValidator.isIdentifier(offering.offeringID, maxLength: 100) {
            add("offering_id", "must be 1-100 letters, digits, '.', '_' or '-'")
        }
        if let description = offering.description, description.count > 1000 {
            add("description", "must be at most 1000 characters")
        }
        if offering.packages.isEmpty || offering.packages.count > 50 {
            add("packages", "must have 1 to 50 packages")
        }
        var seen: [String: Int] = [:]
        for (index, package) in offering.packages.enumerated() {
            let base = "packages/\(index)"
            if !isPackageID(package.packageID) {
                add("\(base)/package_id", "must be 1-100 letters, digits, '.', '_' or '-', optionally after one '$'")
            } else if let first = seen[package.packageID] {
                add("\(base)/package_id", "repeats \(pointer)/packages/\(first)/package_id")
            } else {
                seen[package.packageID] = index
            }
            guard let product = products[package.productID] else {
                add("\(base)/product_id", "names no product of this app's catalog")
                continue
            }
            for (platform, storeID) in package.storeProductIDs.sorted(by: { $0.key.rawValue < $1.key.rawValue })
            where product.storeProductIDs[platform] != storeID {
                add(
                    "\(base)/store_product_ids/\(platform.rawValue)",
                    "must be a \(platform.rawValue) product id the catalog maps to '\(product.productID)'")
            }
        }
        if let paywall = offering.paywall {
            problems += Self.problems(of: paywall, at: "\(pointer)/paywall")
        }
        return problems
    }

    static func problems(of paywall: Paywall, at pointer: String) -> [FieldProblem] {
        var problems: [FieldProblem] = []
        func add(_ field: String, _ detail: String) {
            problems.append(FieldProblem(pointer: "\(pointer)/\(field)", detail: detail))
        }
        if !ProductValidator.isIdentifier(paywall.layout, maxLength: 64) {
            add("layout", "must be 1-64 letters, digits, '.', '_' or '-'")
        }
        for (name, color) in paywall.colors.sorted(by: { $0.key < $1.key }) {
            if !ProductValidator.isIdentifier(name, maxLength: 64) {
                add("colors/\(name)", "has a name that is not 1-64 letters, digits, '.', '_' or '-'")
            } else if !isColor(color) {
                add("colors/\(name)", "must be #RRGGBB or #RRGGBBAA")
            }
        }
        for (name, url) in paywall.imageURLs.sorted(by: { $0.key < $1.key }) {
            if !ProductValidator.isIdentifier(name, maxLength: 64) {
                add("image_urls/\(name)", "has a name that is not 1-64 letters, digits, '.', '_' or '-'")
            } else if !ProductValidator.isWebURL(url) {
                add("image_urls/\(name)", "must be an http(s) URL")
            }
        }
        if paywall.colors.count > 50 { add("colors", "must have at most 50 entries") }
        if paywall.imageURLs.count > 50 { add("image_urls", "must have at most 50 entries") }
        if paywall.localizations.isEmpty {
            add("localizations", "needs at least one locale")
        } else if paywall.localizations[paywall.defaultLocale] == nil {
            add("default_locale", "must be one of the keys of localizations")
        }
        for (locale, text) in paywall.localizations.sorted(by: { $0.key < $1.key }) {
            let base = "localizations/\(locale)"
            if !LocaleMatcher.isValidTag(locale) { add(base, "is not a locale tag such as en, de-AT or pt_BR") }
            if text.title.trimmingCharacters(in: .whitespaces).isEmpty || text.title.count > 200 {
                add("\(base)/title", "must be 1-200 characters")
            }
            if let subtitle = text.subtitle, subtitle.count > 500 {
                add("\(base)/subtitle", "must be at most 500 characters")
            }
            if text.features.count > 20 { add("\(base)/features", "must have at most 20 entries") }
            for (index, feature) in text.features.enumerated() where feature.isEmpty || feature.count > 200 {
                add("\(base)/features/\(index)", "must be 1-200 characters")
            }
            if let action = text.callToAction, action.isEmpty || action.count > 100 {
                add("\(base)/call_to_action", "must be 1-100 characters")
            }
        }
        return problems
    }

    /// Problems of an ordered list of rules; `offerings` are the ids the rules may name.
    static func problems(of rules: [TargetingRule], offerings: Set<String>, at pointer: String = "/rules")
        -> [FieldProblem]
    {
        var problems: [FieldProblem] = []
        var seen: [String: Int] = [:]
        if rules.count > 200 { problems.append(FieldProblem(pointer: pointer, detail: "must have at most 200 rules")) }
        for (index, rule) in rules.enumerated() {
            let base = "\(pointer)/\(index)"
            func add(_ field: String, _ detail: String) {
                problems.append(FieldProblem(pointer: "\(base)/\(field)", detail: detail))
            }
            if !ProductValidator.isIdentifier(rule.ruleID, maxLength: 100) {
                add("rule_id", "must be 1-100 letters, digits, '.', '_' or '-'")
            } else if let first = seen[rule.ruleID] {
                add("rule_id", "repeats \(pointer)/\(first)/rule_id")
            } else {
                seen[rule.ruleID] = index
            }
            if !offerings.contains(rule.offeringID) { add("offering_id", "names no offering of this app") }
            if let platforms = rule.platforms, platforms.isEmpty || Set(platforms).count != platforms.count {
                add("platforms", "must list one or more platforms, each once")
            }
            if let countries = rule.countries {
                if countries.isEmpty || Set(countries).count != countries.count {
                    add("countries", "must list one or more countries, each once")
                }
                for (position, country) in countries.enumerated() where !isCountry(country) {
                    add("countries/\(position)", "must be an ISO 3166-1 alpha-2 code in capitals, such as DE")
                }
            }
            if let minimum = rule.minAppVersion, let below = rule.belowAppVersion, !(minimum < below) {
                add("below_app_version", "must be above min_app_version")
            }
            if let locales = rule.locales {
                if locales.isEmpty { add("locales", "must list one or more locales") }
                for (position, locale) in locales.enumerated() where !LocaleMatcher.isValidTag(locale) {
                    add("locales/\(position)", "must be a locale tag such as en or de-AT")
                }
            }
            if let customer = rule.customer {
                if customer.newCustomer == nil && customer.subscription == nil && customer.trialUsed == nil {
                    add("customer", "must state at least one of new_customer, subscription, trial_used")
                }
                if let group = customer.subscription?.group, !ProductValidator.isIdentifier(group, maxLength: 100) {
                    add("customer/subscription/group", "must be 1-100 letters, digits, '.', '_' or '-'")
                }
            }
        }
        return problems
    }

    /// Problems of a whole offerings document: each offering, ids used twice, exactly one default, the rules.
    static func problems(of document: OfferingsDocument, products: [String: Product]) -> [FieldProblem] {
        var problems: [FieldProblem] = []
        var seen: [String: Int] = [:]
        for (index, offering) in document.offerings.enumerated() {
            problems += Self.problems(of: offering, products: products, at: "/offerings/\(index)")
            if let first = seen[offering.offeringID] {
                problems.append(
                    FieldProblem(
                        pointer: "/offerings/\(index)/offering_id", detail: "repeats /offerings/\(first)/offering_id"))
            } else {
                seen[offering.offeringID] = index
            }
        }
        let defaults = document.offerings.filter(\.isDefault).count
        if !document.offerings.isEmpty && defaults != 1 {
            problems.append(FieldProblem(pointer: "/offerings", detail: "must have exactly one default offering"))
        }
        if document.offerings.count > 100 {
            problems.append(FieldProblem(pointer: "/offerings", detail: "must have at most 100 offerings"))
        }
        problems += Self.problems(of: document.rules, offerings: Set(seen.keys))
        return problems
    }

    /// `$monthly` or `garden_bundle`.
    static func isPackageID(_ text: String) -> Bool {
        ProductValidator.isIdentifier(text.hasPrefix("$") ? String(text.dropFirst()) : text, maxLength: 100)
    }

    static func isCountry(_ text: String) -> Bool {
        CountryCode.isAlpha2(text)
    }

    static func isColor(_ text: String) -> Bool {
        let digits = text.utf8.dropFirst()
        return text.hasPrefix("#") && (digits.count == 6 || digits.count == 8)
            && digits.allSatisfy {
                ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x46) || ($0 >= 0x61 && $0 <= 0x66)
            }
    }
}
