/// An enum whose raw values SQL statements name (`product_type = 'auto_renewable'`): statements interpolate ``sql``
/// rather than spelling the value, so the enum stays the one list in Swift (the tables' check constraints hold it in
/// the database).
package protocol SQLLiteralEnum: RawRepresentable where RawValue == String {}

extension SQLLiteralEnum {
    /// The value as a SQL string literal (`'auto_renewable'`); raw values are plain words, nothing to escape.
    package var sql: String { "'\(rawValue)'" }
}
