import Foundation

// The API document lists every field of these parts of customer info as required, `null` when there is no value.
// Swift's synthesized encoding leaves a `nil` out instead, so a customer decoded and encoded again (the customer in
// the verifier's purchase and restore answers) broke the document while the same customer read from entitlements did
// not. These encoders write every field, `nil` as `null`.

extension EntitlementInfo {
    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(active, forKey: .active)
        try container.encode(expiresAt, forKey: .expiresAt)
        try container.encode(productID, forKey: .productID)
        try container.encode(purchaseDate, forKey: .purchaseDate)
        try container.encode(store, forKey: .store)
        try container.encode(environment, forKey: .environment)
        try container.encode(source, forKey: .source)
    }
}

extension SubscriptionInfo {
    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(productID, forKey: .productID)
        try container.encode(storeProductID, forKey: .storeProductID)
        try container.encode(type, forKey: .type)
        try container.encode(store, forKey: .store)
        try container.encode(environment, forKey: .environment)
        try container.encode(originalTransactionID, forKey: .originalTransactionID)
        try container.encode(state, forKey: .state)
        try container.encode(active, forKey: .active)
        try container.encode(periodType, forKey: .periodType)
        try container.encode(startedAt, forKey: .startedAt)
        try container.encode(expiresAt, forKey: .expiresAt)
        try container.encode(willRenew, forKey: .willRenew)
        try container.encode(renewsIntoStoreProductID, forKey: .renewsIntoStoreProductID)
        try container.encode(gracePeriodExpiresAt, forKey: .gracePeriodExpiresAt)
        try container.encode(expirationReason, forKey: .expirationReason)
        try container.encode(refundedAt, forKey: .refundedAt)
        try container.encode(revokedAt, forKey: .revokedAt)
    }
}

extension NonSubscriptionPurchase {
    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(productID, forKey: .productID)
        try container.encode(storeProductID, forKey: .storeProductID)
        try container.encode(type, forKey: .type)
        try container.encode(store, forKey: .store)
        try container.encode(environment, forKey: .environment)
        try container.encode(transactionID, forKey: .transactionID)
        try container.encode(originalTransactionID, forKey: .originalTransactionID)
        try container.encode(purchaseDate, forKey: .purchaseDate)
        try container.encode(quantity, forKey: .quantity)
        try container.encode(revokedAt, forKey: .revokedAt)
        try container.encode(revocationReason, forKey: .revocationReason)
    }
}

extension CustomerInfo {
    /// Decodes customer info; `product_grants` may be missing (an entitlements replica of an earlier release leaves it
    /// out during a rolling deploy) and is then empty.
    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            appUserID: try container.decode(String.self, forKey: .appUserID),
            aliases: try container.decode([String].self, forKey: .aliases),
            firstSeen: try container.decode(Date.self, forKey: .firstSeen),
            lastSeen: try container.decode(Date.self, forKey: .lastSeen),
            refundCount: try container.decode(Int.self, forKey: .refundCount),
            entitlements: try container.decode([String: EntitlementInfo].self, forKey: .entitlements),
            subscriptions: try container.decode([SubscriptionInfo].self, forKey: .subscriptions),
            trial: try container.decode(TrialInfo.self, forKey: .trial),
            nonSubscriptionPurchases: try container.decode(
                [NonSubscriptionPurchase].self, forKey: .nonSubscriptionPurchases),
            consumableBalances: try container.decode([String: Int64].self, forKey: .consumableBalances),
            productGrants: try container.decodeIfPresent([ProductGrantInfo].self, forKey: .productGrants) ?? [])
    }
}
