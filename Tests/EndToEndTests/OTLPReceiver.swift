import Foundation
import Hummingbird
import HummingbirdTesting
import Logging

/// An OpenTelemetry collector on loopback for the tracing tests: takes OTLP/HTTP JSON (`POST /v1/traces`) and keeps
/// every span with the name of the service that sent it.
actor OTLPReceiver {
    /// One received span; ids in lowercase hex, as `traceparent` writes them.
    struct Span: Sendable {
        var service: String
        var name: String
        var traceID: String
        var spanID: String
        var parentSpanID: String
        var attributes: [String: String]
    }

    private(set) var spans: [Span] = []
    nonisolated let endpoint: String

    private init(endpoint: String) { self.endpoint = endpoint }

    private func receive(_ body: Data) {
        guard let root = try? JSONSerialization.jsonObject(with: body) as? [String: Any] else { return }
        for resourceSpans in root["resourceSpans"] as? [[String: Any]] ?? [] {
            let resource = Self.attributes((resourceSpans["resource"] as? [String: Any])?["attributes"])
            for scope in resourceSpans["scopeSpans"] as? [[String: Any]] ?? [] {
                for span in scope["spans"] as? [[String: Any]] ?? [] {
                    spans.append(
                        Span(
                            service: resource["service.name"] ?? "", name: span["name"] as? String ?? "",
                            traceID: Self.hex(span["traceId"]), spanID: Self.hex(span["spanId"]),
                            parentSpanID: Self.hex(span["parentSpanId"]),
                            attributes: Self.attributes(span["attributes"])))
                }
            }
        }
    }

    /// OTLP JSON writes ids in hex; a protobuf JSON encoder may write them as base64: both become hex.
    private static func hex(_ value: Any?) -> String {
        guard let text = value as? String, !text.isEmpty else { return "" }
        if text.count == 32 || text.count == 16, text.allSatisfy(\.isHexDigit) { return text.lowercased() }
        guard let bytes = Data(base64Encoded: text) else { return text }
        return bytes.map { String(format: "%02x", $0) }.joined()
    }

    /// `[{key, value: {stringValue|intValue|...}}]` as strings.
    private static func attributes(_ value: Any?) -> [String: String] {
        var result: [String: String] = [:]
        for attribute in value as? [[String: Any]] ?? [] {
            guard let key = attribute["key"] as? String, let value = attribute["value"] as? [String: Any],
                let first = value.values.first
            else { continue }
            result[key] = "\(first)"
        }
        return result
    }

    /// Runs a receiver on 127.0.0.1 for the duration of `body`.
    static func run(_ body: @Sendable (OTLPReceiver) async throws -> Void) async throws {
        try await LoopbackStub.run(
            label: "otlp-receiver",
            routes: { router, receiver in
                router.post("/v1/traces") { request, _ -> Response in
                    let bytes = try await request.body.collect(upTo: 16 << 20)
                    await receiver.value?.receive(Data(bytes.readableBytesView))
                    return Response(
                        status: .ok, headers: [.contentType: "application/json"],
                        body: .init(byteBuffer: .init(string: "{}")))
                }
            },
            make: { OTLPReceiver(endpoint: $0) }, body)
    }
}
