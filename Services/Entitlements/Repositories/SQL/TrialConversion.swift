import Foundation
import Logging
import PostgresNIO
import ShopkeeperDatabase

/// The app's own free trial (`subscriptions.trials_v1`) turned into a purchase: the customer's first purchase of a
/// subscription in the trial's group, made after the trial started, converts it, once per customer. The subscriptions
/// service owns the rule and the record (`subscriptions.record_trial_conversion_v1`, migration `0008_trial_conversions`
/// there); it is called here so that the conversion and its event are written in the purchase's transaction.
enum TrialConversion {
    /// Records the conversion when this purchase is one; returns whether it was (the caller writes the event).
    static func record(
        appID: String, customerID: UUID, productID: String, transactionID: String, purchasedAt: Date,
        on connection: PostgresConnection, logger: Logger
    ) async throws -> Bool {
        let rows = try await connection.run(
            Record.self, try PostgresBindings(appID, customerID, productID, transactionID, purchasedAt),
            logger: logger
        ) { try $0.decode(Bool.self) }
        return rows.first ?? false
    }

    private enum Record: PreparedSQL {
        static let sql = """
            SELECT subscriptions.record_trial_conversion_v1($1::text, $2::uuid, $3::text, $4::text, $5::timestamptz)
            """
    }
}
