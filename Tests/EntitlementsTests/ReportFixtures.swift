import Foundation
import HTTPTypes
import ShopkeeperModels
import ShopkeeperReports
import ShopkeeperTestSupport

/// Dates and transactions of the report tests: days counted back from today (UTC), so the range holds closed days (in
/// the daily summaries) and today (worked out from the facts).
enum ReportFixtures {
    /// Midnight UTC, `daysAgo` days before today.
    static func day(_ daysAgo: Int) -> Date {
        let now = Date().timeIntervalSince1970
        return Date(timeIntervalSince1970: (now / 86_400).rounded(.down) * 86_400 - Double(daysAgo) * 86_400)
    }

    /// `YYYY-MM-DD` of ``day(_:)``.
    static func name(_ daysAgo: Int) -> String {
        ReportDay(containing: day(daysAgo)).description
    }

    /// A production transaction bought at `date`.
    static func sale(
        _ id: String = UUID().uuidString, product: String = "garden", original: String? = nil, at date: Date,
        price: Int64? = 1990, currency: String? = "USD", storefront: String? = "USA", quantity: Int = 1,
        store: StorePlatform = .appStore, environment: StoreEnvironment = .production,
        ownership: OwnershipType = .purchased
    ) -> StoreTransaction {
        StoreTransaction(
            store: store, environment: environment, transactionID: id, originalTransactionID: original ?? id,
            storeProductID: store == .appStore ? "com.test.\(product)" : product, type: nil, quantity: quantity,
            purchaseDate: date,
            expiresDate: product == "pro_monthly" ? date.addingTimeInterval(30 * 86_400) : nil,
            ownershipType: ownership, priceMilliunits: price, currency: currency, storefront: storefront)
    }

    /// `transaction` as the store's refund of it, at `date`.
    static func refund(_ transaction: StoreTransaction, at date: Date) -> StoreTransaction {
        var refunded = transaction
        refunded.revocationDate = date
        refunded.revocationReason = .appIssue
        return refunded
    }
}

extension EntitlementsHarness {
    /// `GET /v1/admin/reports/<name>?<query>` with the app's secret key (or `kind`).
    func report(_ name: String, _ query: String, kind: APIKeyKind = .secret, accept: String? = nil) async throws
        -> any HTTPAnswer
    {
        var headers: HTTPFields = [:]
        if let accept { headers[.accept] = accept }
        return try await send(.get, "/v1/admin/reports/\(name)?\(query)", kind: kind, headers: headers)
    }

    /// The report's JSON, requiring 200.
    func reportDocument(_ name: String, _ query: String) async throws -> ReportDocument {
        let answer = try await report(name, query)
        guard answer.status == .ok else {
            throw HarnessError("report \(name) answered \(answer.status): \(String(buffer: answer.body))")
        }
        return try ReportDocument(answer.body.readableBytesView)
    }
}
