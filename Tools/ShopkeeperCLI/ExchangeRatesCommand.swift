import ArgumentParser
import Foundation

/// `shopkeeper exchange-rates`: load an app's exchange rates from a file, or list them (secret key).
struct ExchangeRatesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "exchange-rates",
        abstract: "Load the exchange rates reports convert with (ECB XML, CSV or JSON), or list them (secret key).",
        subcommands: [Load.self, List.self]
    )

    struct Load: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Load a file of rates: ECB's eurofxref XML, a CSV date,currency,rate, or JSON set by hand.",
            discussion: """
                The file's extension says what it is (.xml, .csv, .json) unless --format does. Nothing is fetched: \
                download ECB's file yourself (eurofxref-daily.xml, eurofxref-hist.xml).
                  shopkeeper exchange-rates load eurofxref-hist.xml
                  shopkeeper exchange-rates load rates.csv --base USD
                """)
        @OptionGroup var connection: ConnectionOptions
        @Argument(help: "The file.") var file: String
        @Option(help: "xml, csv or json (default: from the file's extension).") var format: String?
        @Option(help: "The currency a CSV file's rates are against.") var base: String?
        @Flag(help: "Remove every rate of the app first (to change its base).") var replace = false

        func run() async throws {
            let kind = (format ?? URL(fileURLWithPath: file).pathExtension).lowercased()
            let types = ["xml": "application/xml", "csv": "text/csv", "json": "application/json"]
            guard let type = types[kind] else { throw ValidationError("--format must be xml, csv or json") }
            let body = try Data(contentsOf: URL(fileURLWithPath: file))
            var query: [URLQueryItem] = []
            if let base { query.append(URLQueryItem(name: "base", value: base)) }
            if replace { query.append(URLQueryItem(name: "replace", value: "true")) }
            var components = URLComponents()
            components.queryItems = query
            let suffix = query.isEmpty ? "" : "?" + (components.percentEncodedQuery ?? "")
            let answer = try await connection.secretClient().send(
                .PUT, "/v1/admin/exchange-rates\(suffix)", body: body, contentType: type)
            FileHandle.standardOutput.write(answer)
            print()
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the app's rates as JSON.")
        @OptionGroup var connection: ConnectionOptions
        @Option(help: "First day (YYYY-MM-DD).") var from: String?
        @Option(help: "Last day, included (YYYY-MM-DD).") var to: String?
        @Option(help: "One currency (ISO 4217).") var currency: String?

        func run() async throws {
            let query = [("from", from), ("to", to), ("currency", currency)].compactMap { name, value in
                value.map { URLQueryItem(name: name, value: $0) }
            }
            let answer = try await connection.secretClient().get(
                "/v1/admin/exchange-rates", query: query, accept: "application/json")
            FileHandle.standardOutput.write(answer)
            print()
        }
    }
}
