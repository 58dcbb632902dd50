import Foundation
import Logging
import PostgresNIO
import ShopkeeperModels

/// ``AuditLogRepository`` on PostgreSQL.
struct AuditLogPostgresRepository: AuditLogRepository {
    let client: PostgresClient
    let logger: Logger

    func record(_ record: AuditRecord) async throws {
        let targets = String(decoding: try JSONEncoder().encode(record.targets), as: UTF8.self)
        try await client.query(
            """
            INSERT INTO gateway.audit_log
                (app_id, actor, key_id, session_id, user_email, method, path, action, targets, summary, status,
                 request_id, idempotency_key)
            VALUES (\(record.appID), \(record.actor.rawValue), \(record.keyID), \(record.sessionID),
                    \(record.userEmail), \(record.method), \(record.path), \(record.action), \(targets)::jsonb,
                    \(record.summary), \(record.status), \(record.requestID), \(record.idempotencyKey))
            ON CONFLICT (app_id, method, path, idempotency_key) WHERE idempotency_key IS NOT NULL
            DO UPDATE SET status = excluded.status, request_id = excluded.request_id
            """,
            logger: logger)
    }

    func entries(appID: String, limit: Int, before: Int64?) async throws -> AuditLogPage {
        // One more than asked for: whether a next page exists.
        let rows = try await client.query(
            """
            SELECT entry_id, at, actor, key_id, session_id, method, path, action, targets::text, summary, status,
                   request_id, user_email
            FROM gateway.audit_log
            WHERE app_id = \(appID) AND (\(before)::bigint IS NULL OR entry_id < \(before))
            ORDER BY entry_id DESC
            LIMIT \(limit + 1)
            """,
            logger: logger)
        var entries: [AuditLogEntry] = []
        let decoder = JSONDecoder()
        for try await row in rows.decode(
            (Int64, Date, String, String?, String?, String, String, String, String, String, Int, String?, String?).self)
        {
            entries.append(
                AuditLogEntry(
                    entryID: row.0, at: row.1, actor: ConsoleActor(rawValue: row.2) ?? .secretKey, keyID: row.3,
                    sessionID: row.4, method: row.5, path: row.6, action: row.7,
                    targets: (try? decoder.decode([String: String].self, from: Data(row.8.utf8))) ?? [:],
                    summary: row.9, status: row.10, requestID: row.11, userEmail: row.12))
        }
        let more = entries.count > limit
        if more { entries.removeLast() }
        return AuditLogPage(entries: entries, nextBefore: more ? entries.last?.entryID : nil)
    }
}
