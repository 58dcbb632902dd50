import Foundation

/// The parameters of a Stripe API request: an `application/x-www-form-urlencoded` body (or a GET's query) in
/// Stripe's bracket notation, `metadata[app_user_id]=...`, `line_items[0][price]=...`, `expand[]=...` (the official
/// libraries write arrays as `expand[0]=...`: both are read).
struct StripeForm: Sendable, Equatable {
    /// The pairs in the order sent.
    var pairs: [(name: String, value: String)]

    static func == (lhs: StripeForm, rhs: StripeForm) -> Bool { lhs.fingerprint == rhs.fingerprint }

    init(pairs: [(name: String, value: String)]) {
        self.pairs = pairs
    }

    /// Parses `a=1&b%5Bc%5D=2` (`+` is a space).
    init(encoded text: String) {
        pairs = text.split(separator: "&", omittingEmptySubsequences: true).map { item in
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ part: Substring) -> String {
                let spaced = part.replacingOccurrences(of: "+", with: " ")
                return spaced.removingPercentEncoding ?? spaced
            }
            return (decode(parts[0]), parts.count > 1 ? decode(parts[1]) : "")
        }
    }

    /// The last value sent for `name` (`line_items[0][price]`).
    subscript(name: String) -> String? {
        pairs.last { $0.name == name }?.value
    }

    /// The values of the array `name`: `name[]` and `name[<n>]`, in order.
    func list(_ name: String) -> [String] {
        pairs.compactMap { pair in
            guard pair.name.hasPrefix(name + "["), pair.name.hasSuffix("]") else { return nil }
            let inner = pair.name.dropFirst(name.count + 1).dropLast()
            return inner.isEmpty || inner.allSatisfy(\.isNumber) ? pair.value : nil
        }
    }

    /// The string map `name`: `name[key]=value` (`metadata`, `payment_intent_data[metadata]`).
    func map(_ name: String) -> [String: String] {
        var values: [String: String] = [:]
        for pair in pairs where pair.name.hasPrefix(name + "[") && pair.name.hasSuffix("]") {
            let key = String(pair.name.dropFirst(name.count + 1).dropLast())
            guard !key.contains("[") else { continue }
            values[key] = pair.value
        }
        return values
    }

    /// Whether any parameter is named `name` or nested under it.
    func has(_ name: String) -> Bool {
        pairs.contains { $0.name == name || $0.name.hasPrefix(name + "[") }
    }

    /// The top-level names sent (`line_items` for `line_items[0][price]`).
    var topLevelNames: Set<String> {
        Set(pairs.map { pair in String(pair.name.prefix { $0 != "[" }) })
    }

    /// Refuses a parameter the endpoint does not take, as Stripe does (`parameter_unknown`); `expand` is always taken.
    func allow(_ names: Set<String>) throws(StripeError) {
        for name in topLevelNames.sorted() where !names.contains(name) && name != "expand" {
            throw StripeError.invalid("Received unknown parameter: \(name)", param: name, code: "parameter_unknown")
        }
    }

    /// A required string parameter.
    func required(_ name: String) throws(StripeError) -> String {
        guard let value = self[name], !value.isEmpty else { throw StripeError.parameterMissing(name) }
        return value
    }

    /// A boolean parameter (`true`/`false`).
    func bool(_ name: String) throws(StripeError) -> Bool? {
        guard let value = self[name] else { return nil }
        switch value {
        case "true": return true
        case "false": return false
        default: throw StripeError.invalid("Invalid boolean: \(value)", param: name)
        }
    }

    /// A non-negative integer parameter.
    func integer(_ name: String) throws(StripeError) -> Int64? {
        guard let value = self[name] else { return nil }
        guard let number = Int64(value), number >= 0 else {
            throw StripeError.invalid("Invalid integer: \(value)", param: name)
        }
        return number
    }

    /// The parameters, canonical (sorted), for telling an idempotent retry from a different request.
    var fingerprint: String {
        pairs.map { "\($0.name)=\($0.value)" }.sorted().joined(separator: "&")
    }
}

/// A Stripe API error, as Stripe renders it: `{"error": {"type", "code", "message", "param", ...}}` with Stripe's
/// status (400 invalid request, 401 authentication, 402 card, 404 missing, 409 conflict).
struct StripeError: Error, Sendable, Equatable {
    var status: Int
    var type: String
    var code: String?
    var message: String
    var param: String?
    var declineCode: String?
    /// Card errors: the payment intent that failed.
    var paymentIntent: StripeValue?

    var json: StripeValue {
        var error: StripeValue = ["type": .string(type), "message": .string(message)]
        if let code {
            error["code"] = .string(code)
            error["doc_url"] = .string(
                "https://stripe.com/docs/error-codes/\(code.replacingOccurrences(of: "_", with: "-"))")
        }
        if let param { error["param"] = .string(param) }
        if let declineCode { error["decline_code"] = .string(declineCode) }
        if let paymentIntent { error["payment_intent"] = paymentIntent }
        return ["error": error]
    }

    static func invalid(_ message: String, param: String? = nil, code: String? = nil, status: Int = 400)
        -> StripeError
    {
        StripeError(status: status, type: "invalid_request_error", code: code, message: message, param: param)
    }

    static func parameterMissing(_ param: String) -> StripeError {
        invalid("Missing required param: \(param).", param: param, code: "parameter_missing")
    }

    /// `No such customer: 'cus_...'` (404 `resource_missing`).
    static func missing(_ noun: String, _ id: String, param: String = "id") -> StripeError {
        invalid("No such \(noun): '\(id)'", param: param, code: "resource_missing", status: 404)
    }

    /// A declined card (402 `card_declined`).
    static func declined(_ decline: StripeDecline, paymentIntent: StripeValue?) -> StripeError {
        StripeError(
            status: 402, type: "card_error", code: decline.code, message: decline.message, param: nil,
            declineCode: decline.declineCode, paymentIntent: paymentIntent)
    }

    static let authentication = StripeError(
        status: 401, type: "invalid_request_error", code: nil,
        message: "Invalid API Key provided. You did not provide a valid secret key (sk_test_...).", param: nil)

    /// Stripe failing (an injected fault): `api_error`, or `rate_limit` for 429.
    static func fault(_ status: Int) -> StripeError {
        status == 429
            ? StripeError(
                status: 429, type: "invalid_request_error", code: "rate_limit",
                message: "Too many requests hit the API too quickly.", param: nil)
            : StripeError(
                status: status, type: "api_error", code: nil,
                message: "An unknown error occurred (an injected sandbox fault).", param: nil)
    }

    static func idempotency(_ key: String) -> StripeError {
        StripeError(
            status: 400, type: "idempotency_error", code: nil,
            message: "Keys for idempotent requests can only be used with the same parameters they were first used "
                + "with. Try using a key other than '\(key)' if you meant to execute a different request.",
            param: nil)
    }
}
