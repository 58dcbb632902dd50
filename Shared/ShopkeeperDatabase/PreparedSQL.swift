import Logging
import PostgresNIO
import Synchronization

/// The text of a statement that runs on every request of a hot path: PostgreSQL plans it once per connection
/// instead of once per execution (planning a statement often costs more than running it). Through a transaction
/// pooler it is sent unprepared, planned on every execution (``DatabasePooler/transaction``).
///
/// Parameters are `$1`, `$2`... Cast each one to the type of the Swift value bound to it (`$1::text`,
/// `$2::bigint`, `$3::timestamptz`): the statement is prepared with the types of its first execution, and a cast
/// keeps a `NULL` there from leaving a parameter's type to guesswork.
package protocol PreparedSQL {
    static var sql: String { get }
}

/// `S` as PostgresNIO's prepared statement, with the bindings and row decoding of one execution.
package struct PreparedStatement<S: PreparedSQL, Row>: PostgresPreparedStatement {
    /// A name from the statement's text: short (PostgreSQL cuts names at 63 bytes) and the same in every process.
    /// Worked out once per statement (``StatementNames``): PostgresNIO asks for it at every execution.
    package static var name: String { StatementNames.name(of: S.self) }
    package static var sql: String { S.sql }

    package var bindings: PostgresBindings
    package var decode: @Sendable (PostgresRow) throws -> Row

    package func makeBindings() throws -> PostgresBindings { bindings }
    package func decodeRow(_ row: PostgresRow) throws -> Row { try decode(row) }
}

/// The names of the prepared statements this process has run, by statement type: hashing a statement's text at every
/// execution (the customer info render's is over 10 KB) was 2% of the entitlements service's CPU in a purchase profile.
enum StatementNames {
    private static let names = Mutex<[ObjectIdentifier: String]>([:])

    static func name<S: PreparedSQL>(of statement: S.Type) -> String {
        let key = ObjectIdentifier(statement)
        if let known = names.withLock({ $0[key] }) { return known }
        let name = "sk_" + String(fnv1a64(S.sql), radix: 16)
        names.withLock { $0[key] = name }
        return name
    }
}

/// FNV-1a, 64 bits: a stable hash of a statement's text (Swift's `hashValue` changes from process to process).
func fnv1a64(_ text: String) -> UInt64 {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in text.utf8 {
        hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
    }
    return hash
}

extension DatabasePooler {
    /// How `statement` is sent on this path to PostgreSQL: `nil` without a pooler, where it runs as a named prepared
    /// statement (prepared once per connection); through a transaction pooler, as this unnamed statement, which lives
    /// for one exchange and so never depends on the server session the pooler lends.
    func unnamedQuery<Statement: PostgresPreparedStatement>(_ statement: Statement) throws -> PostgresQuery? {
        switch self {
        case .none: return nil
        case .transaction: return PostgresQuery(unsafeSQL: Statement.sql, binds: try statement.makeBindings())
        }
    }
}

extension PostgresConnection {
    /// Runs `S` with `bindings` and decodes every row with `decode` (``executeStatement(_:logger:file:line:)``).
    package func run<S: PreparedSQL, Row>(
        _ statement: S.Type, _ bindings: PostgresBindings, logger: Logger,
        decode: @escaping @Sendable (PostgresRow) throws -> Row
    ) async throws -> [Row] {
        let rows = try await executeStatement(
            PreparedStatement<S, Row>(bindings: bindings, decode: decode), logger: logger)
        var decoded: [Row] = []
        for try await row in rows { decoded.append(row) }
        return decoded
    }

    /// Runs `statement`: as a named prepared statement (prepared once per connection), or, through a transaction
    /// pooler (``DatabasePooler/process``), as the unnamed statement, which lives for one exchange and so never
    /// depends on the server session the pooler lends. Throws ``DatabaseConnectionLost`` on a closed connection.
    package func executeStatement<Statement: PostgresPreparedStatement>(
        _ statement: Statement, logger: Logger, file: String = #fileID, line: Int = #line
    ) async throws -> AsyncThrowingMapSequence<PostgresRowSequence, Statement.Row> {
        try requireOpen()
        guard let query = try DatabasePooler.process.unnamedQuery(statement) else {
            return try await execute(statement, logger: logger, file: file, line: line)
        }
        return try await self.query(query, logger: logger, file: file, line: line).map(statement.decodeRow)
    }

    /// Runs `S` with `bindings`, reading its result to the end.
    package func run<S: PreparedSQL>(_ statement: S.Type, _ bindings: PostgresBindings, logger: Logger) async throws {
        _ = try await run(statement, bindings, logger: logger) { _ in () }
    }
}

extension PostgresClient {
    /// ``PostgresConnection/executeStatement(_:logger:file:line:)`` on a pooled connection.
    package func executeStatement<Statement: PostgresPreparedStatement>(
        _ statement: Statement, logger: Logger, file: String = #fileID, line: Int = #line
    ) async throws -> AsyncThrowingMapSequence<PostgresRowSequence, Statement.Row> {
        guard let query = try DatabasePooler.process.unnamedQuery(statement) else {
            return try await execute(statement, logger: logger, file: file, line: line)
        }
        return try await self.query(query, logger: logger, file: file, line: line).map(statement.decodeRow)
    }
}

extension PostgresBindings {
    /// Bindings of these values, in order; `nil` binds `NULL`.
    package init(_ values: (any PostgresThrowingDynamicTypeEncodable)?...) throws {
        self.init(capacity: values.count)
        for value in values {
            if let value { try append(value) } else { appendNull() }
        }
    }
}
