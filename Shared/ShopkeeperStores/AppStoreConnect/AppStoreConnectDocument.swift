/// A JSON:API collection document of the App Store Connect API, as the endpoints the catalog sync reads answer:
/// `data` (resources of one type), `included` (related resources asked for with `include=`), `links` (`next` while
/// more pages follow) and `meta.paging`.
package struct AppStoreConnectDocument<Attributes: Codable & Sendable & Equatable>: Codable, Sendable, Equatable {
    package var data: [AppStoreConnectResource<Attributes>]
    package var included: [AppStoreConnectResource<AppStoreConnectIncludedAttributes>]?
    package var links: AppStoreConnectLinks
    package var meta: AppStoreConnectMeta?

    package init(
        data: [AppStoreConnectResource<Attributes>],
        included: [AppStoreConnectResource<AppStoreConnectIncludedAttributes>]? = nil, links: AppStoreConnectLinks,
        meta: AppStoreConnectMeta? = nil
    ) {
        self.data = data
        self.included = included
        self.links = links
        self.meta = meta
    }
}

/// One JSON:API resource: `type`, `id`, `attributes` and the `relationships` that point at other resources.
package struct AppStoreConnectResource<Attributes: Codable & Sendable & Equatable>: Codable, Sendable, Equatable {
    package var type: String
    package var id: String
    package var attributes: Attributes?
    package var relationships: [String: AppStoreConnectRelationship]?

    package init(
        type: String, id: String, attributes: Attributes?, relationships: [String: AppStoreConnectRelationship]? = nil
    ) {
        self.type = type
        self.id = id
        self.attributes = attributes
        self.relationships = relationships
    }
}

/// A to-one relationship's linkage (`{"data": {"type": "territories", "id": "USA"}}`).
package struct AppStoreConnectRelationship: Codable, Sendable, Equatable {
    package var data: AppStoreConnectIdentifier?

    package init(data: AppStoreConnectIdentifier?) { self.data = data }
}

/// A resource's `type` and `id`.
package struct AppStoreConnectIdentifier: Codable, Sendable, Equatable {
    package var type: String
    package var id: String

    package init(type: String, id: String) {
        self.type = type
        self.id = id
    }
}

/// `links`: the page's own address and, while more follow, the next page's.
package struct AppStoreConnectLinks: Codable, Sendable, Equatable {
    package var `self`: String
    package var next: String?

    package init(self address: String, next: String? = nil) {
        self.`self` = address
        self.next = next
    }
}

/// `meta.paging`.
package struct AppStoreConnectMeta: Codable, Sendable, Equatable {
    package var paging: Paging

    package struct Paging: Codable, Sendable, Equatable {
        package var total: Int
        package var limit: Int

        package init(total: Int, limit: Int) {
            self.total = total
            self.limit = limit
        }
    }

    package init(paging: Paging) { self.paging = paging }
}

/// The attributes of the included resources the sync asks for: price points (`customerPrice`, `proceeds`) and
/// territories (`currency`).
package struct AppStoreConnectIncludedAttributes: Codable, Sendable, Equatable {
    package var customerPrice: String?
    package var proceeds: String?
    package var currency: String?

    package init(customerPrice: String? = nil, proceeds: String? = nil, currency: String? = nil) {
        self.customerPrice = customerPrice
        self.proceeds = proceeds
        self.currency = currency
    }
}

/// An `apps` resource's attributes (`GET /v1/apps?filter[bundleId]=`).
package struct AppStoreConnectAppAttributes: Codable, Sendable, Equatable {
    package var bundleId: String
    package var name: String?
    package var sku: String?
    package var primaryLocale: String?

    package init(bundleId: String, name: String? = nil, sku: String? = nil, primaryLocale: String? = nil) {
        self.bundleId = bundleId
        self.name = name
        self.sku = sku
        self.primaryLocale = primaryLocale
    }
}

/// An `inAppPurchases` resource's attributes (`GET /v1/apps/{id}/inAppPurchasesV2`).
package struct AppStoreConnectInAppPurchaseAttributes: Codable, Sendable, Equatable {
    /// The reference name.
    package var name: String
    package var productId: String
    /// `CONSUMABLE`, `NON_CONSUMABLE` or `NON_RENEWING_SUBSCRIPTION`.
    package var inAppPurchaseType: String
    /// `APPROVED`, `WAITING_FOR_REVIEW`, `DEVELOPER_ACTION_NEEDED`, ...
    package var state: String
    package var reviewNote: String?
    package var familySharable: Bool?
    package var contentHosting: Bool?

    package init(
        name: String, productId: String, inAppPurchaseType: String, state: String, reviewNote: String? = nil,
        familySharable: Bool? = false, contentHosting: Bool? = false
    ) {
        self.name = name
        self.productId = productId
        self.inAppPurchaseType = inAppPurchaseType
        self.state = state
        self.reviewNote = reviewNote
        self.familySharable = familySharable
        self.contentHosting = contentHosting
    }
}

/// A `subscriptionGroups` resource's attributes.
package struct AppStoreConnectSubscriptionGroupAttributes: Codable, Sendable, Equatable {
    package var referenceName: String

    package init(referenceName: String) { self.referenceName = referenceName }
}

/// A `subscriptions` resource's attributes (`GET /v1/subscriptionGroups/{id}/subscriptions`).
package struct AppStoreConnectSubscriptionAttributes: Codable, Sendable, Equatable {
    /// The reference name.
    package var name: String
    package var productId: String
    package var familySharable: Bool?
    /// `APPROVED`, `WAITING_FOR_REVIEW`, `DEVELOPER_ACTION_NEEDED`, ...
    package var state: String
    /// `ONE_WEEK`, `ONE_MONTH`, `TWO_MONTHS`, `THREE_MONTHS`, `SIX_MONTHS`, `ONE_YEAR`.
    package var subscriptionPeriod: String?
    package var reviewNote: String?
    package var groupLevel: Int?

    package init(
        name: String, productId: String, familySharable: Bool? = false, state: String, subscriptionPeriod: String?,
        reviewNote: String? = nil, groupLevel: Int? = 1
    ) {
        self.name = name
        self.productId = productId
        self.familySharable = familySharable
        self.state = state
        self.subscriptionPeriod = subscriptionPeriod
        self.reviewNote = reviewNote
        self.groupLevel = groupLevel
    }
}

/// The attributes of an `inAppPurchasePrices` or `subscriptionPrices` resource: when the price starts (`nil`: in
/// force now); the amount and territory are its related price point and territory.
package struct AppStoreConnectPriceAttributes: Codable, Sendable, Equatable {
    package var startDate: String?
    package var endDate: String?
    package var manual: Bool?

    package init(startDate: String? = nil, endDate: String? = nil, manual: Bool? = true) {
        self.startDate = startDate
        self.endDate = endDate
        self.manual = manual
    }
}

/// App Store Connect's error document (`{"errors": [{"status": "401", "code": "NOT_AUTHORIZED", ...}]}`).
package struct AppStoreConnectErrors: Codable, Sendable, Equatable {
    package var errors: [Entry]

    package struct Entry: Codable, Sendable, Equatable {
        package var status: String
        package var code: String
        package var title: String
        package var detail: String?

        package init(status: String, code: String, title: String, detail: String? = nil) {
            self.status = status
            self.code = code
            self.title = title
            self.detail = detail
        }
    }

    package init(errors: [Entry]) { self.errors = errors }
}
