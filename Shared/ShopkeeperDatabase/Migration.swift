import Crypto
import ShopkeeperCore

/// One forward-only schema change, written as plain SQL.
package struct Migration: Sendable {
    /// Unique, ordered name such as `0001_products`; never renamed once released.
    package var name: String
    /// Statements run in one transaction.
    package var sql: String

    package init(_ name: String, sql: String) {
        self.name = name
        self.sql = sql
    }

    /// SHA-256 of the SQL, recorded when applied so an edited migration is noticed.
    package var checksum: String {
        SHA256.hash(data: Array(sql.utf8)).hexString
    }
}
