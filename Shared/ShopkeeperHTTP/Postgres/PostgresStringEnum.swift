import NIOCore
import PostgresNIO
import ShopkeeperModels

/// An enum stored as its raw value in a `text` column, decoded from a row and bound as a parameter as itself:
/// `row.decode((ProductType, String).self)` instead of decoding a `String` and calling `init(rawValue:)`.
///
/// A value the enum does not know fails the row's decoding with PostgresNIO's `PostgresDecodingError` (which names the
/// column and its type), never a crash and never a silent default. The tables' check constraints keep such values out.
///
/// Here rather than in `ShopkeeperModels`, which the app-side kit shares and which must not depend on PostgresNIO.
package protocol PostgresStringEnum: RawRepresentable, PostgresDecodable, PostgresEncodable, Sendable
where RawValue == String {}

extension PostgresStringEnum {
    /// Bound as `text`, like the raw value.
    package static var psqlType: PostgresDataType { String.psqlType }

    /// Bound in the raw value's format.
    package static var psqlFormat: PostgresFormat { String.psqlFormat }

    /// Writes the raw value.
    package func encode<JSONEncoder: PostgresJSONEncoder>(
        into byteBuffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>
    ) {
        rawValue.encode(into: &byteBuffer, context: context)
    }

    /// Reads the column as text, then the case of that raw value; an unknown one is a decoding failure.
    package init<JSONDecoder: PostgresJSONDecoder>(
        from buffer: inout ByteBuffer, type: PostgresDataType, format: PostgresFormat,
        context: PostgresDecodingContext<JSONDecoder>
    ) throws {
        let rawValue = try String(from: &buffer, type: type, format: format, context: context)
        guard let value = Self(rawValue: rawValue) else { throw PostgresDecodingError.Code.failure }
        self = value
    }
}

extension ProductType: PostgresStringEnum {}
extension EventType: PostgresStringEnum {}
extension TrialState: PostgresStringEnum {}
extension EligibilityReason: PostgresStringEnum {}
