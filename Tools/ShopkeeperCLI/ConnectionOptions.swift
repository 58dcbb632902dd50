import ArgumentParser
import Foundation

/// Where the gateway is and which keys to use; each falls back to its environment variable.
struct ConnectionOptions: ParsableArguments {
    @Option(help: "Gateway base URL (env SHOPKEEPER_GATEWAY_URL).")
    var gatewayURL: String = ProcessInfo.processInfo.environment["SHOPKEEPER_GATEWAY_URL"] ?? "http://127.0.0.1:8080"

    @Option(help: "Operator key (env SHOPKEEPER_OPERATOR_KEY).")
    var operatorKey: String?

    @Option(help: "Secret key of the app (env SHOPKEEPER_SECRET_KEY).")
    var secretKey: String?

    func operatorClient() throws -> GatewayAPIClient {
        guard let key = operatorKey ?? ProcessInfo.processInfo.environment["SHOPKEEPER_OPERATOR_KEY"] else {
            throw ValidationError("Give --operator-key or set SHOPKEEPER_OPERATOR_KEY.")
        }
        return GatewayAPIClient(baseURL: gatewayURL, bearer: key)
    }

    func secretClient() throws -> GatewayAPIClient {
        guard let key = secretKey ?? ProcessInfo.processInfo.environment["SHOPKEEPER_SECRET_KEY"] else {
            throw ValidationError("Give --secret-key or set SHOPKEEPER_SECRET_KEY.")
        }
        return GatewayAPIClient(baseURL: gatewayURL, bearer: key)
    }
}

/// Prints a value as indented JSON.
func printJSON(_ value: some Encodable) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    encoder.dateEncodingStrategy = .iso8601
    print(String(decoding: try encoder.encode(value), as: UTF8.self))
}
