import ArgumentParser
import Foundation
import ShopkeeperCustomerTokens

/// `shopkeeper customers`: tools for an app's customers.
struct CustomersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "customers",
        abstract: "Tools for an app's customers.",
        subcommands: [Token.self]
    )

    /// Mints a customer token as the developer's own server would, for testing a `signed` app.
    struct Token: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Mint a customer token (HS256 JWT, sub = the app user id) for testing a 'signed' app.",
            discussion: """
                Prints the token. Send it as 'Shopkeeper-Customer-Token' with the app's public key on every request \
                that names this customer. Your own server mints the same tokens in production, with any JWT library: \
                HS256, the secret's text as the key, 'sub' = the app user id, 'iat', 'exp' at most 24 h later, and \
                the secret id as 'kid' (or ES256 with the private key of a registered public key, its id as 'kid').
                """
        )

        @Option(help: "The app user id the token acts for.") var user: String
        @Option(help: "Seconds the token stays valid (at most 86400).") var ttl: Int = 300
        @Option(help: "The customer token secret (env SHOPKEEPER_CUSTOMER_TOKEN_SECRET).") var secret: String?
        @Option(help: "The secret's id, sent as 'kid' (env SHOPKEEPER_CUSTOMER_TOKEN_SECRET_ID; optional).")
        var secretID: String?
        @Option(help: "Sign ES256 with this P-256 private key (PEM file) instead of a secret.")
        var privateKeyFile: String?
        @Option(help: "The registered public key's id, sent as 'kid' with --private-key-file (optional).")
        var keyID: String?

        func validate() throws {
            guard !user.isEmpty, user.count <= 256 else { throw ValidationError("--user must be 1 to 256 characters") }
            guard ttl > 0, TimeInterval(ttl) <= CustomerToken.maximumLifetime else {
                throw ValidationError("--ttl must be 1 to \(Int(CustomerToken.maximumLifetime)) seconds")
            }
        }

        func run() async throws {
            if let privateKeyFile {
                let pem = try String(contentsOfFile: privateKeyFile, encoding: .utf8)
                print(
                    try await CustomerToken.mint(
                        subject: user, lifetime: TimeInterval(ttl), privateKeyPEM: pem, keyID: keyID ?? ""))
                return
            }
            let environment = ProcessInfo.processInfo.environment
            guard let text = secret ?? environment["SHOPKEEPER_CUSTOMER_TOKEN_SECRET"] else {
                throw ValidationError("Give --secret or set SHOPKEEPER_CUSTOMER_TOKEN_SECRET.")
            }
            let id = secretID ?? environment["SHOPKEEPER_CUSTOMER_TOKEN_SECRET_ID"] ?? ""
            print(
                try await CustomerToken.mint(
                    subject: user, lifetime: TimeInterval(ttl), secret: CustomerTokenSecret(id: id, secret: text)))
        }
    }
}
