import Foundation

/// How an endpoint receives each event: the payload's shape and the request's `Content-Type`.
enum WebhookFormat: String, Sendable, Equatable, CaseIterable, Codable {
    /// The event as the events API shows it (`application/json`), as the one webhook of earlier releases sent it.
    case shopkeeper
    /// A CloudEvents 1.0 event in structured JSON mode (`application/cloudevents+json`), the Shopkeeper event as its
    /// `data`.
    case cloudevents

    /// The request's `Content-Type`.
    var contentType: String {
        switch self {
        case .shopkeeper: "application/json"
        case .cloudevents: CloudEvent.contentType
        }
    }
}

/// A Shopkeeper event as a CloudEvent (CloudEvents 1.0, JSON event format, structured content mode).
///
/// The REQUIRED attributes: `specversion` `1.0`; `id`, the event's id (receivers deduplicate by `source` + `id`);
/// `source`, the URI-reference `/apps/<app id>` (percent-encoded); `type`, `dev.shopkeeper.<event type>` (reverse-DNS
/// prefixed, as the spec recommends). OPTIONAL ones: `time` (RFC 3339, the event's `created_at`), `subject` (the
/// customer's `app_user_id`, absent for app-level events) and `datacontenttype` `application/json`. `data` is the
/// event exactly as the `shopkeeper` format sends it.
enum CloudEvent {
    /// The media type of a structured-mode JSON CloudEvent (JSON event format, section 3).
    static let contentType = "application/cloudevents+json; charset=utf-8"
    /// The prefix of every `type`.
    static let typePrefix = "dev.shopkeeper."

    /// The `source` of an app's events: `/apps/<app id>`, the id percent-encoded as one path segment.
    static func source(appID: String) -> String {
        var segment = CharacterSet.urlPathAllowed
        segment.remove("/")
        return "/apps/" + (appID.addingPercentEncoding(withAllowedCharacters: segment) ?? "")
    }

    /// The structured-mode body: the context attributes, then `data` (`data` is JSON already and is spliced in as it
    /// is, so that it is byte for byte the `shopkeeper` body).
    static func structured(
        id: UUID, appID: String, type: String, subject: String?, time: String, data: String
    ) -> String {
        var attributes: [(String, String)] = [
            ("specversion", "1.0"), ("id", id.uuidString.lowercased()), ("source", source(appID: appID)),
            ("type", typePrefix + type), ("time", time), ("datacontenttype", "application/json"),
        ]
        if let subject, !subject.isEmpty { attributes.append(("subject", subject)) }
        let rendered = attributes.map { "\(quoted($0.0)):\(quoted($0.1))" }
        return "{" + rendered.joined(separator: ",") + ",\"data\":" + data + "}"
    }

    /// `text` as a JSON string.
    private static func quoted(_ text: String) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        guard let data = try? encoder.encode(text) else { return "\"\"" }
        return String(decoding: data, as: UTF8.self)
    }
}
