import Foundation
import ShopkeeperHTTP

/// The body of `PUT /v1/admin/stores/stripe`. An omitted (or `null`) `secret_key` keeps the stored one, so the
/// webhook signing secrets can be rolled without pasting the key again; `webhook_secrets` are set as sent.
struct StripeCredentialsInput: Codable, Sendable {
    var secretKey: String?
    var webhookSecrets: [String]

    typealias CodingKeys = StripeCredentials.CodingKeys

    /// The characters after a key's or a signing secret's prefix (Stripe's are letters and digits; the sandbox
    /// store's defaults hold `_` too).
    private static let secretCharacters = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_".utf8)
    private static let keyPrefixes = ["sk_test_", "sk_live_", "rk_test_", "rk_live_"]

    /// The credentials to store, or every problem at once. `liveKeysAllowed`: whether the verifier talks to Stripe's
    /// own API (a live key is never sent anywhere else, such as the sandbox store a development setting names).
    func credentials(keeping existing: StripeCredentials?, liveKeysAllowed: Bool) throws(RequestError)
        -> StripeCredentials
    {
        var problems: [FieldProblem] = []
        let key = secretKey ?? existing?.secretKey
        if let secretKey {
            if !Self.wellFormed(secretKey, prefixes: Self.keyPrefixes) {
                problems.append(
                    FieldProblem(
                        pointer: "/secret_key",
                        detail: "must be a Stripe secret or restricted key (sk_test_, sk_live_, rk_test_ or rk_live_ "
                            + "followed by 8 to 250 letters, digits or _)"))
            } else if StripeCredentials.isLive(secretKey) && !liveKeysAllowed {
                problems.append(
                    FieldProblem(
                        pointer: "/secret_key",
                        detail: "a live key is accepted only by a verifier that talks to Stripe's own API "
                            + "(SHOPKEEPER_STRIPE_API_URL is another address here); use a test key"))
            }
        } else if key == nil {
            problems.append(FieldProblem(pointer: "/secret_key", detail: "is required (no key is stored yet)"))
        }
        if !(1...2).contains(webhookSecrets.count) {
            problems.append(
                FieldProblem(
                    pointer: "/webhook_secrets",
                    detail: "must hold one or two signing secrets (two while a secret is rolled)"))
        }
        for (index, secret) in webhookSecrets.enumerated() where !Self.wellFormed(secret, prefixes: ["whsec_"]) {
            problems.append(
                FieldProblem(
                    pointer: "/webhook_secrets/\(index)",
                    detail: "must be an endpoint signing secret (whsec_ followed by 8 to 250 letters, digits or _)"))
        }
        if Set(webhookSecrets).count != webhookSecrets.count {
            problems.append(FieldProblem(pointer: "/webhook_secrets", detail: "must not repeat a secret"))
        }
        guard problems.isEmpty, let key else { throw .validationFailed(problems) }
        return StripeCredentials(secretKey: key, webhookSecrets: webhookSecrets)
    }

    private static func wellFormed(_ value: String, prefixes: [String]) -> Bool {
        guard let prefix = prefixes.first(where: value.hasPrefix) else { return false }
        let rest = value.utf8.dropFirst(prefix.utf8.count)
        return (8...250).contains(rest.count) && rest.allSatisfy(secretCharacters.contains)
    }
}
