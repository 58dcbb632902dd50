import AsyncHTTPClient
import NIOCore
import NIOPosix
import NIOSSL

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Why a delivery attempt failed, coarsely: what a tenant reads in `last_error` (`GET /v1/admin/events`).
///
/// Never the receiver's text nor an underlying error's description: a tenant chooses the URL, so the error of a call
/// to it would otherwise tell them about this server's network (which addresses answer, what they say). Details go
/// to the operator's log only.
enum WebhookFailure: Error, Sendable, Hashable {
    /// No answer within `SHOPKEEPER_WEBHOOK_TIMEOUT_SECONDS` (resolving, connecting or waiting for the answer).
    case timeout
    /// The receiver's address refused the connection.
    case connectionRefused
    /// The connection failed otherwise (reset, closed before an answer, unreachable network).
    case connectionFailed
    /// The TLS handshake failed (certificate, protocol).
    case tls
    /// The name does not resolve.
    case dns
    /// The URL, or an address its name resolves to, is not allowed on this server (loopback, private, ...).
    case destinationRefused
    /// The receiver answered with a status other than 2xx (redirects are never followed).
    case httpStatus(Int)
    /// The delivery's endpoint is disabled or deleted.
    case notConfigured
    /// The stored signing secret does not open (sealed under another master key, or corrupted).
    case secretUnavailable

    /// The stored `last_error`: one of a fixed set of texts (`HTTP <status>` for a status).
    var reason: String {
        switch self {
        case .timeout: "timeout"
        case .connectionRefused: "connection refused"
        case .connectionFailed: "connection failed"
        case .tls: "TLS failure"
        case .dns: "DNS failure"
        case .destinationRefused: "destination refused"
        case .httpStatus(let status): "HTTP \(status)"
        case .notConfigured: "no webhook configured"
        case .secretUnavailable: "signing secret unavailable"
        }
    }

    /// The answer's status, for `last_status`.
    var status: Int? {
        if case .httpStatus(let status) = self { return status }
        return nil
    }

    /// The coarse reason of an error thrown while sending a request, by its type.
    init(classifying error: any Error) {
        switch error {
        case let failure as WebhookFailure:
            self = failure
        case let client as HTTPClientError:
            switch client {
            case .deadlineExceeded, .readTimeout, .writeTimeout, .connectTimeout, .tlsHandshakeTimeout,
                .getConnectionFromPoolTimeout:
                self = .timeout
            default:
                self = .connectionFailed
            }
        case let connection as NIOConnectionError:
            if connection.connectionErrors.contains(where: { Self.isRefused($0.error) }) {
                self = .connectionRefused
            } else if connection.connectionErrors.isEmpty {
                self = .dns
            } else {
                self = .connectionFailed
            }
        case is NIOSSLError, is BoringSSLError, is NIOSSLExtraError:
            self = .tls
        case let channel as ChannelError:
            if case .connectTimeout = channel { self = .timeout } else { self = .connectionFailed }
        default:
            self = Self.isRefused(error) ? .connectionRefused : .connectionFailed
        }
    }

    /// Whether `error` is a refused connection (`ECONNREFUSED`).
    private static func isRefused(_ error: any Error) -> Bool {
        (error as? IOError)?.errnoCode == ECONNREFUSED
    }
}
