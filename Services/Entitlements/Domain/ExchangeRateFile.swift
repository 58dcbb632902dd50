import Foundation
import ShopkeeperHTTP
import ShopkeeperReports

/// One exchange rate of a day: how many units of `currency` one unit of the set's base buys (ECB's convention:
/// `USD 1.0962` against EUR means 1 EUR = 1.0962 USD).
struct ExchangeRate: Sendable, Equatable {
    var day: ReportDay
    /// ISO 4217 code, three capital letters.
    var currency: String
    /// A positive decimal as given (`1.0962`), kept exact.
    var rate: String
    /// Where it was given: its line in a file, its index in a JSON body.
    var line: Int = 0
}

/// Rates against one base currency, read from a file the operator gives (or set by hand).
struct ExchangeRateSet: Sendable, Equatable {
    var base: String
    var rates: [ExchangeRate]
    /// `ecb`, `csv` or `manual`: where the rates came from, kept with each rate.
    var source: String
}

/// Reads the files exchange rates are loaded from; no network call, the operator gives the file. Every problem names
/// the line it is on (`#line=N`, RFC 5147's fragment for text), 422 `validation_failed`.
///
/// - ECB (`application/xml`, `text/xml`): the European Central Bank's `eurofxref` documents, the daily
///   (`eurofxref-daily.xml`), 90-day and historical (`eurofxref-hist.xml`) ones alike: a `gesmes:Envelope` holding
///   `<Cube time='YYYY-MM-DD'>` elements, each holding `<Cube currency='USD' rate='1.0962'/>`; the base is EUR.
/// - CSV (`text/csv`): a header `date,currency,rate`, then one rate a line; the base is the request's `base`.
/// - JSON (`application/json`, rates set by hand): `{"base": "EUR", "rates": [{"day", "currency", "rate"}]}`, each
///   rate a string.
enum ExchangeRateFile {
    /// The most rates one file may hold (ECB's history since 1999 is about 200,000).
    static let maximumRates = 500_000

    /// Reads an ECB `eurofxref` XML document.
    static func ecb(_ text: String) throws(RequestError) -> ExchangeRateSet {
        guard text.contains("eurofxref") || text.contains("gesmes:Envelope") else {
            throw problem(1, "is not an ECB eurofxref document (a gesmes:Envelope of Cube elements)")
        }
        var rates: [ExchangeRate] = []
        var day: ReportDay?
        for (index, line) in lines(text) {
            var rest = Substring(line)
            while let open = rest.range(of: "<Cube") {
                guard let close = rest[open.upperBound...].firstIndex(of: ">") else {
                    throw problem(index, "has a Cube element that does not end on its line")
                }
                let attributes = try Self.attributes(rest[open.upperBound..<close], line: index)
                rest = rest[rest.index(after: close)...]
                if let time = attributes["time"] {
                    guard let parsed = ReportDay(time) else {
                        throw problem(index, "time '\(time)' is not a day YYYY-MM-DD")
                    }
                    day = parsed
                } else if let currency = attributes["currency"] {
                    guard let day else { throw problem(index, "has a rate outside a Cube with a time") }
                    guard let rate = attributes["rate"] else { throw problem(index, "has a currency without a rate") }
                    rates.append(try checked(day: day, currency: currency, rate: rate, base: "EUR", line: index))
                }
            }
        }
        return try finished(ExchangeRateSet(base: "EUR", rates: rates, source: "ecb"))
    }

    /// Reads a CSV document `date,currency,rate` of rates against `base`.
    static func csv(_ text: String, base: String) throws(RequestError) -> ExchangeRateSet {
        var rates: [ExchangeRate] = []
        var header = false
        for (index, line) in lines(text) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty { continue }
            let fields = trimmed.split(separator: ",", omittingEmptySubsequences: false).map {
                $0.trimmingCharacters(in: CharacterSet(charactersIn: " \""))
            }
            if !header {
                guard fields.map({ $0.lowercased() }) == ["date", "currency", "rate"] else {
                    throw problem(index, "must be the header date,currency,rate")
                }
                header = true
                continue
            }
            guard fields.count == 3 else { throw problem(index, "must hold 3 fields: date,currency,rate") }
            guard let day = ReportDay(fields[0]) else {
                throw problem(index, "date '\(fields[0])' is not a day YYYY-MM-DD")
            }
            rates.append(try checked(day: day, currency: fields[1], rate: fields[2], base: base, line: index))
        }
        guard header else { throw problem(1, "must be the header date,currency,rate") }
        return try finished(ExchangeRateSet(base: base, rates: rates, source: "csv"))
    }

    /// Checks rates set by hand (`pointer` names each in the JSON body).
    static func manual(base: String, rates: [(day: String, currency: String, rate: String)]) throws(RequestError)
        -> ExchangeRateSet
    {
        var problems: [FieldProblem] = []
        var checkedRates: [ExchangeRate] = []
        if !isCurrency(base) {
            problems.append(FieldProblem(pointer: "/base", detail: "must be an ISO 4217 code such as EUR"))
        }
        for (index, given) in rates.enumerated() {
            guard let day = ReportDay(given.day) else {
                problems.append(FieldProblem(pointer: "/rates/\(index)/day", detail: "must be a day YYYY-MM-DD"))
                continue
            }
            if let detail = problem(currency: given.currency, rate: given.rate, base: base) {
                problems.append(FieldProblem(pointer: "/rates/\(index)", detail: detail))
            } else {
                checkedRates.append(ExchangeRate(day: day, currency: given.currency, rate: given.rate, line: index))
            }
        }
        guard problems.isEmpty else { throw .validationFailed(problems) }
        return try finished(
            ExchangeRateSet(base: base, rates: checkedRates, source: "manual"), locate: { "/rates/\($0)" })
    }

    /// Whether `text` is an ISO 4217 code: three capital ASCII letters.
    static func isCurrency(_ text: String) -> Bool {
        text.utf8.count == 3 && text.utf8.allSatisfy { (65...90).contains($0) }
    }

    /// Whether `text` is a positive decimal of at most 12 integer and 12 fraction digits.
    static func isRate(_ text: String) -> Bool {
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let whole = parts.first, (1...12).contains(whole.count), whole.allSatisfy(\.isASCII),
            whole.allSatisfy(\.isNumber)
        else { return false }
        if parts.count == 2 {
            let fraction = parts[1]
            guard (1...12).contains(fraction.count), fraction.allSatisfy(\.isASCII), fraction.allSatisfy(\.isNumber)
            else { return false }
        }
        return text.contains { $0 != "0" && $0 != "." }
    }

    private static func checked(
        day: ReportDay, currency: String, rate: String, base: String, line: Int
    ) throws(RequestError) -> ExchangeRate {
        if let detail = problem(currency: currency, rate: rate, base: base) { throw problem(line, detail) }
        return ExchangeRate(day: day, currency: currency, rate: rate, line: line)
    }

    /// What is wrong with a rate of `currency` against `base`, or `nil`.
    private static func problem(currency: String, rate: String, base: String) -> String? {
        guard isCurrency(currency) else { return "currency '\(currency)' is not an ISO 4217 code such as USD" }
        guard currency != base else { return "gives a rate of the base \(base) itself (always 1)" }
        guard isRate(rate) else { return "rate '\(rate)' is not a positive decimal such as 1.0962" }
        return nil
    }

    /// At least one rate, at most ``maximumRates``, each day and currency once (two different rates for one are an
    /// error; the same rate twice is kept once).
    private static func finished(
        _ set: ExchangeRateSet, locate: (Int) -> String = { "#line=\($0)" }
    ) throws(RequestError) -> ExchangeRateSet {
        guard isCurrency(set.base) else {
            throw .validationFailed([FieldProblem(pointer: "?base", detail: "must be an ISO 4217 code such as EUR")])
        }
        guard !set.rates.isEmpty else {
            throw .validationFailed([FieldProblem(pointer: "", detail: "The rates hold no rate.")])
        }
        guard set.rates.count <= maximumRates else {
            throw .validationFailed([
                FieldProblem(pointer: "", detail: "The rates hold more than \(maximumRates): load them in parts.")
            ])
        }
        var seen: [String: String] = [:]
        var unique: [ExchangeRate] = []
        for rate in set.rates {
            let key = "\(rate.day) \(rate.currency)"
            if let earlier = seen[key] {
                guard Decimal(string: earlier) == Decimal(string: rate.rate) else {
                    throw .validationFailed([
                        FieldProblem(
                            pointer: locate(rate.line),
                            detail: "gives \(rate.currency) on \(rate.day) twice, \(earlier) and \(rate.rate)")
                    ])
                }
                continue
            }
            seen[key] = rate.rate
            unique.append(rate)
        }
        var result = set
        result.rates = unique
        return result
    }

    /// Attributes `name='value'` or `name="value"` of an element's text.
    private static func attributes(_ text: Substring, line: Int) throws(RequestError) -> [String: String] {
        var result: [String: String] = [:]
        var rest = text
        while let equals = rest.firstIndex(of: "=") {
            let name = rest[..<equals].trimmingCharacters(in: .whitespaces)
            var after = rest[rest.index(after: equals)...].drop { $0 == " " }
            guard let quote = after.first, quote == "'" || quote == "\"" else {
                throw problem(line, "has an attribute \(name) without a quoted value")
            }
            after = after.dropFirst()
            guard let end = after.firstIndex(of: quote) else {
                throw problem(line, "has an attribute \(name) whose value does not end")
            }
            result[name] = String(after[..<end])
            rest = after[after.index(after: end)...]
        }
        return result
    }

    /// The lines of `text`, numbered from 1 (`\n` or `\r\n` ends).
    private static func lines(_ text: String) -> [(Int, String)] {
        // "\r\n" is one Character in Swift: both ends split.
        text.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" }.enumerated().map { index, line in
            (index + 1, String(line.hasSuffix("\r") ? line.dropLast() : line))
        }
    }

    private static func problem(_ line: Int, _ detail: String) -> RequestError {
        .validationFailed([FieldProblem(pointer: "#line=\(line)", detail: "line \(line) \(detail)")])
    }
}
