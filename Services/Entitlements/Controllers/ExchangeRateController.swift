import Foundation
import Hummingbird
import NIOCore
import ShopkeeperHTTP
import ShopkeeperReports

/// `/v1/admin/exchange-rates` (secret key): the app's exchange rates, loaded from a file the operator gives (ECB's
/// `eurofxref` XML or a CSV) or set by hand (JSON), the body's `Content-Type` choosing the reader
/// (``ExchangeRateFile``); and listed.
struct ExchangeRateController {
    let rates: any ExchangeRateRepository
    /// The largest file accepted (ECB's whole history since 1999 is about 7 MB of XML).
    static let maximumBytes = 32 << 20
    /// Rates listed when `limit` is not given, and the most one list holds.
    static let defaultLimit = 10_000
    static let maximumLimit = 100_000

    /// Rates set by hand. `Codable`: unknown members are ignored, and the NUL guard looks only at what is kept.
    struct ManualRates: Codable {
        struct Rate: Codable {
            var day: String
            var currency: String
            var rate: String
        }
        var base: String
        var rates: [Rate]
    }

    /// The rates listed.
    struct ListAnswer: Encodable {
        var rates: [StoredExchangeRate]
    }

    var endpoints: RouteCollection<ServiceRequestContext> {
        let routes = RouteCollection(context: ServiceRequestContext.self)
        routes.put { request, context in
            let caller = try context.requireSecretCaller()
            let query = request.uri.queryParameters
            let replace = try Self.flag(query.get("replace"), name: "replace")
            let set = try await Self.read(request)
            let load = try await rates.load(set, appID: caller.appID, replace: replace)
            context.logger.info(
                "exchange rates loaded",
                metadata: [
                    "app_id": "\(caller.appID)", "base": "\(load.base)", "written": "\(load.written)",
                    "source": "\(set.source)",
                ])
            return try JSONBody.response(load)
        }
        routes.get { request, context in
            let caller = try context.requireSecretCaller()
            let query = request.uri.queryParameters
            var problems: [FieldProblem] = []
            func day(_ name: String) -> ReportDay? {
                guard let text = query.get(name) else { return nil }
                guard let day = ReportDay(text) else {
                    problems.append(FieldProblem(pointer: "?\(name)", detail: "must be a UTC day YYYY-MM-DD"))
                    return nil
                }
                return day
            }
            let from = day("from")
            let to = day("to")
            let currency = query.get("currency")
            if let currency, !ExchangeRateFile.isCurrency(currency) {
                problems.append(FieldProblem(pointer: "?currency", detail: "must be an ISO 4217 code such as USD"))
            }
            var limit = Self.defaultLimit
            if let text = query.get("limit") {
                if let given = Int(text), (1...Self.maximumLimit).contains(given) {
                    limit = given
                } else {
                    problems.append(
                        FieldProblem(pointer: "?limit", detail: "must be a whole number from 1 to \(Self.maximumLimit)")
                    )
                }
            }
            guard problems.isEmpty else { throw RequestError.invalidQuery(problems) }
            let listed = try await rates.list(appID: caller.appID, from: from, to: to, currency: currency, limit: limit)
            return try JSONBody.response(ListAnswer(rates: listed))
        }
        return routes
    }

    /// The rates of the body, read as its `Content-Type` says.
    static func read(_ request: Request) async throws -> ExchangeRateSet {
        let type = (request.headers[.contentType] ?? "").split(separator: ";").first.map {
            $0.trimmingCharacters(in: .whitespaces).lowercased()
        }
        let body = try await JSONBody.collect(from: request, limit: maximumBytes)
        switch type {
        case "application/xml", "text/xml":
            return try ExchangeRateFile.ecb(try text(body))
        case "text/csv":
            guard let base = request.uri.queryParameters.get("base") else {
                throw RequestError.invalidQuery([
                    FieldProblem(
                        pointer: "?base", detail: "is required with a CSV file: the currency the rates are against")
                ])
            }
            return try ExchangeRateFile.csv(try text(body), base: base)
        case "application/json":
            let manual = try JSONBody.decode(ManualRates.self, from: Data(body.readableBytesView))
            return try ExchangeRateFile.manual(
                base: manual.base, rates: manual.rates.map { ($0.day, $0.currency, $0.rate) })
        default:
            throw RequestError.unsupportedMediaType(request.headers[.contentType] ?? "none")
        }
    }

    private static func text(_ body: ByteBuffer) throws(RequestError) -> String {
        guard let text = String(validating: body.readableBytesView, as: UTF8.self) else {
            throw .validationFailed([FieldProblem(pointer: "", detail: "The file is not UTF-8 text.")])
        }
        return text
    }

    private static func flag(_ text: String?, name: String) throws(RequestError) -> Bool {
        switch text {
        case nil, "false": return false
        case "true": return true
        default: throw .invalidQuery([FieldProblem(pointer: "?\(name)", detail: "must be true or false")])
        }
    }
}
