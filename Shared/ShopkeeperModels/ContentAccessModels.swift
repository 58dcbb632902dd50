import Foundation

/// `POST /internal/v1/content/access` (content to entitlements): is the customer entitled to these products now?
package struct ContentAccessRequest: Codable, Sendable, Equatable {
    package var appUserID: String
    /// The device asking; with `bindDevice`, counted against the purchase's device limit.
    package var deviceID: String?
    package var productIDs: [String]
    /// Count the device against the limit of the purchase that grants each product (as presenting it would).
    package var bindDevice: Bool

    package init(appUserID: String, deviceID: String?, productIDs: [String], bindDevice: Bool) {
        self.appUserID = appUserID
        self.deviceID = deviceID
        self.productIDs = productIDs
        self.bindDevice = bindDevice
    }

    package enum CodingKeys: String, CodingKey {
        case appUserID = "app_user_id"
        case deviceID = "device_id"
        case productIDs = "product_ids"
        case bindDevice = "bind_device"
    }
}

/// Whether a customer may have a product's content now.
package enum ContentAccessState: String, Codable, Sendable, CaseIterable {
    /// Entitled now (see ``ContentAccess/source``).
    case granted
    /// Bought, but every purchase of it was refunded or revoked, and nothing else grants it.
    case revoked
    /// Entitled, but the purchase has been used on as many devices as the app allows and this device is new.
    case deviceLimitReached = "device_limit_reached"
    /// Nothing grants it.
    case none
}

/// One product's answer.
package struct ContentAccess: Codable, Sendable, Equatable {
    package var productID: String
    package var state: ContentAccessState
    /// For `granted`: `purchase`, `subscription`, `promotional` or `free_claim`.
    package var source: String?
    /// For `device_limit_reached`: the app's limit.
    package var deviceLimit: Int?

    package init(productID: String, state: ContentAccessState, source: String? = nil, deviceLimit: Int? = nil) {
        self.productID = productID
        self.state = state
        self.source = source
        self.deviceLimit = deviceLimit
    }

    package enum CodingKeys: String, CodingKey {
        case state, source
        case productID = "product_id"
        case deviceLimit = "device_limit"
    }
}

/// The answer of `POST /internal/v1/content/access`, one entry per product asked about, in order.
package struct ContentAccessResponse: Codable, Sendable, Equatable {
    package var products: [ContentAccess]

    package init(products: [ContentAccess]) {
        self.products = products
    }
}

/// `POST /internal/v1/content/claims` (content to entitlements): grants a free product to a customer. Entitlements
/// checks again, in the statement that records the claim, that the catalog marks the product free.
package struct ContentClaimGrantRequest: Codable, Sendable, Equatable {
    package var appUserID: String
    package var productID: String

    package init(appUserID: String, productID: String) {
        self.appUserID = appUserID
        self.productID = productID
    }

    package enum CodingKeys: String, CodingKey {
        case appUserID = "app_user_id"
        case productID = "product_id"
    }
}

/// The recorded claim.
package struct ContentClaimGrantResponse: Codable, Sendable, Equatable {
    package var productID: String
    package var claimedAt: Date
    /// `false` when the customer had claimed it before (nothing changed).
    package var created: Bool

    package init(productID: String, claimedAt: Date, created: Bool) {
        self.productID = productID
        self.claimedAt = claimedAt
        self.created = created
    }

    package enum CodingKeys: String, CodingKey {
        case created
        case productID = "product_id"
        case claimedAt = "claimed_at"
    }
}
