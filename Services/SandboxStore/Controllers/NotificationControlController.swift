import Foundation
import Hummingbird
import ShopkeeperHTTP
import ShopkeeperStores

/// `/sandbox/notifications`: where the sandbox sends App Store Server Notifications, what it sent, and sending one
/// again (as the App Store retries, or many times at once).
///
/// - `PUT /sandbox/notifications` `{"apple_url": "http://..."}` (`null` stops sending)
/// - `GET /sandbox/notifications`: `{"apple_url": ..., "deliveries": [...]}`, oldest first
/// - `POST /sandbox/notifications/{uuid}/resend?times=N&concurrency=M`: `{"statuses": [...]}`
/// - `POST /sandbox/notifications/apple/test` `{"bundle_id": ...}`: a `TEST` notification
struct NotificationControlController {
    let notifier: AppleNotifier
    let maxBodyBytes: Int

    var endpoints: RouteCollection<ServiceRequestContext> {
        let routes = RouteCollection(context: ServiceRequestContext.self)
        routes.put { request, _ in
            let body = try await JSONBody.decode(NotificationTargets.self, from: request, limit: maxBodyBytes)
            if let text = body.appleURL {
                guard let url = URL(string: text), let scheme = url.scheme?.lowercased(),
                    scheme == "http" || scheme == "https", url.host != nil
                else { throw RequestError.invalid("/apple_url", "must be an http or https URL") }
                await notifier.setURL(url)
            } else {
                await notifier.setURL(nil)
            }
            return try JSONBody.response(NotificationTargets(appleURL: await notifier.currentURL()?.absoluteString))
        }
        routes.get { _, _ in
            try JSONBody.response(
                NotificationLog(
                    appleURL: await notifier.currentURL()?.absoluteString, deliveries: await notifier.list()))
        }
        routes.post("{uuid}/resend") { request, context in
            let uuid = context.parameters.get("uuid") ?? ""
            let times = request.uri.queryParameters["times"].flatMap { Int($0) } ?? 1
            let concurrency = request.uri.queryParameters["concurrency"].flatMap { Int($0) } ?? 1
            guard (1...1000).contains(times), (1...256).contains(concurrency) else {
                throw RequestError.invalidQuery([
                    FieldProblem(pointer: "?times", detail: "times 1-1000, concurrency 1-256")
                ])
            }
            let statuses = try await ErrorMapping.control {
                try await notifier.resend(uuid: uuid, times: times, concurrency: concurrency)
            }
            return try JSONBody.response(ResendResult(statuses: statuses))
        }
        routes.post("apple/test") { request, _ in
            let body = try await JSONBody.decode(TestNotificationRequest.self, from: request, limit: maxBodyBytes)
            let uuid = try await notifier.notify(.test, transaction: nil, bundleId: body.bundleId)
            guard let uuid else { throw ErrorMapping.controlError(.notificationURLNotSet) }
            return try JSONBody.response(["notification_uuid": uuid], status: .created)
        }
        return routes
    }
}

struct NotificationTargets: Codable, Sendable {
    var appleURL: String?

    enum CodingKeys: String, CodingKey {
        case appleURL = "apple_url"
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(appleURL, forKey: .appleURL)
    }
}

struct NotificationLog: Encodable, Sendable {
    var appleURL: String?
    var deliveries: [AppleNotifier.Delivery]

    enum CodingKeys: String, CodingKey {
        case deliveries
        case appleURL = "apple_url"
    }
}

struct ResendResult: Codable, Sendable {
    var statuses: [Int]
}

struct TestNotificationRequest: Codable, Sendable {
    var bundleId: String

    enum CodingKeys: String, CodingKey {
        case bundleId = "bundle_id"
    }
}
