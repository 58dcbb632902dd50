/// `GET .../purchases/voidedpurchases`: Google's `VoidedPurchasesListResponse`.
package struct GoogleVoidedPurchasesListResponse: Codable, Sendable, Equatable {
    /// Absent when nothing was voided in the window, as Google does.
    package var voidedPurchases: [GoogleVoidedPurchase]?
    package var pageInfo: GooglePageInfo?
    /// Present when another page follows: send its `nextPageToken` as the `token` query parameter.
    package var tokenPagination: GoogleTokenPagination?

    package init(
        voidedPurchases: [GoogleVoidedPurchase]?, pageInfo: GooglePageInfo? = nil,
        tokenPagination: GoogleTokenPagination? = nil
    ) {
        self.voidedPurchases = voidedPurchases
        self.pageInfo = pageInfo
        self.tokenPagination = tokenPagination
    }
}

/// A refunded, charged-back or revoked purchase (Google's `VoidedPurchase`).
package struct GoogleVoidedPurchase: Codable, Sendable, Equatable {
    /// The `kind` Google sends.
    package static let kindValue = "androidpublisher#voidedPurchase"

    package var kind: String?
    package var purchaseToken: String?
    /// UNIX milliseconds, as a decimal string.
    package var purchaseTimeMillis: String?
    /// UNIX milliseconds, as a decimal string.
    package var voidedTimeMillis: String?
    package var orderId: String?
    /// 0 user, 1 developer, 2 Google.
    package var voidedSource: Int?
    /// 0 other, 1 remorse, 2 not received, 3 defective, 4 accidental purchase, 5 fraud,
    /// 6 friendly fraud, 7 chargeback.
    package var voidedReason: Int?
    /// Set for quantity-based partial refunds only.
    package var voidedQuantity: Int?

    package init(
        kind: String? = kindValue, purchaseToken: String?, purchaseTimeMillis: String?, voidedTimeMillis: String?,
        orderId: String?, voidedSource: Int?, voidedReason: Int?, voidedQuantity: Int? = nil
    ) {
        self.kind = kind
        self.purchaseToken = purchaseToken
        self.purchaseTimeMillis = purchaseTimeMillis
        self.voidedTimeMillis = voidedTimeMillis
        self.orderId = orderId
        self.voidedSource = voidedSource
        self.voidedReason = voidedReason
        self.voidedQuantity = voidedQuantity
    }
}

/// Google's `PageInfo`.
package struct GooglePageInfo: Codable, Sendable, Equatable {
    package var totalResults: Int?
    package var resultPerPage: Int?
    package var startIndex: Int?

    package init(totalResults: Int?, resultPerPage: Int?, startIndex: Int?) {
        self.totalResults = totalResults
        self.resultPerPage = resultPerPage
        self.startIndex = startIndex
    }
}

/// Google's `TokenPagination`.
package struct GoogleTokenPagination: Codable, Sendable, Equatable {
    package var nextPageToken: String?
    package var previousPageToken: String?

    package init(nextPageToken: String?, previousPageToken: String? = nil) {
        self.nextPageToken = nextPageToken
        self.previousPageToken = previousPageToken
    }
}
