import Foundation

/// A Google service-account key file (the JSON the Cloud console downloads), with Google's field names.
package struct GoogleServiceAccountKey: Codable, Sendable, Equatable {
    /// Always `service_account`.
    package var type: String
    package var projectId: String
    package var privateKeyId: String
    /// RSA-2048 private key, PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`).
    package var privateKey: String
    /// `name@project.iam.gserviceaccount.com`: the `iss` of the account's assertions.
    package var clientEmail: String
    package var clientId: String
    package var authUri: String
    /// Where to exchange an assertion for an access token; also the assertion's `aud`.
    package var tokenUri: String
    package var authProviderX509CertUrl: String
    package var clientX509CertUrl: String
    package var universeDomain: String?

    package enum CodingKeys: String, CodingKey {
        case type
        case projectId = "project_id"
        case privateKeyId = "private_key_id"
        case privateKey = "private_key"
        case clientEmail = "client_email"
        case clientId = "client_id"
        case authUri = "auth_uri"
        case tokenUri = "token_uri"
        case authProviderX509CertUrl = "auth_provider_x509_cert_url"
        case clientX509CertUrl = "client_x509_cert_url"
        case universeDomain = "universe_domain"
    }

    package init(
        type: String = "service_account", projectId: String, privateKeyId: String, privateKey: String,
        clientEmail: String, clientId: String, authUri: String = "https://accounts.google.com/o/oauth2/auth",
        tokenUri: String, authProviderX509CertUrl: String = "https://www.googleapis.com/oauth2/v1/certs",
        clientX509CertUrl: String, universeDomain: String? = "googleapis.com"
    ) {
        self.type = type
        self.projectId = projectId
        self.privateKeyId = privateKeyId
        self.privateKey = privateKey
        self.clientEmail = clientEmail
        self.clientId = clientId
        self.authUri = authUri
        self.tokenUri = tokenUri
        self.authProviderX509CertUrl = authProviderX509CertUrl
        self.clientX509CertUrl = clientX509CertUrl
        self.universeDomain = universeDomain
    }
}

/// The claims of the RS256 JWT a service account sends to `token_uri` with
/// `grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer`; header `{"alg":"RS256","typ":"JWT","kid":<private_key_id>}`.
///
/// The verifier signs them (``RS256Signer``); the sandbox store checks them as Google does.
package struct GoogleServiceAccountClaims: Codable, Sendable, Equatable {
    /// The grant type of the token request.
    package static let grantType = "urn:ietf:params:oauth:grant-type:jwt-bearer"
    /// The scope the Play Developer API needs.
    package static let androidPublisherScope = "https://www.googleapis.com/auth/androidpublisher"
    /// The longest lifetime (`exp - iat`) Google accepts.
    package static let maximumLifetimeSeconds: Int64 = 3600

    /// The service account's `client_email`.
    package var iss: String
    /// Space-separated scopes.
    package var scope: String
    /// The key's `token_uri`.
    package var aud: String
    /// Issued at, UNIX seconds.
    package var iat: Int64
    /// Expires at, UNIX seconds; at most an hour after `iat`.
    package var exp: Int64
    /// The user to impersonate (domain-wide delegation); unused by the Play Developer API.
    package var sub: String?

    package init(iss: String, scope: String, aud: String, iat: Int64, exp: Int64, sub: String? = nil) {
        self.iss = iss
        self.scope = scope
        self.aud = aud
        self.iat = iat
        self.exp = exp
        self.sub = sub
    }

    /// Claims for `key`, asking for the Play Developer API scope, issued at `now` for an hour.
    package init(key: GoogleServiceAccountKey, now: Date = Date(), lifetime: Int64 = 3600) {
        let issuedAt = Int64(now.timeIntervalSince1970)
        self.init(
            iss: key.clientEmail, scope: Self.androidPublisherScope, aud: key.tokenUri, iat: issuedAt,
            exp: issuedAt + lifetime)
    }

    /// Whether `scope` includes `wanted`.
    package func hasScope(_ wanted: String) -> Bool {
        scope.split(separator: " ").contains { $0 == wanted }
    }
}

/// A successful token response: `{"access_token":"ya29...","expires_in":3599,"token_type":"Bearer"}`.
package struct GoogleTokenResponse: Codable, Sendable, Equatable {
    package var accessToken: String
    /// Seconds the token stays valid.
    package var expiresIn: Int
    /// Always `Bearer`.
    package var tokenType: String

    package enum CodingKeys: String, CodingKey {
        case accessToken = "access_token"
        case expiresIn = "expires_in"
        case tokenType = "token_type"
    }

    package init(accessToken: String, expiresIn: Int, tokenType: String = "Bearer") {
        self.accessToken = accessToken
        self.expiresIn = expiresIn
        self.tokenType = tokenType
    }
}

/// A refused token request: `{"error":"invalid_grant","error_description":"Invalid JWT Signature."}`.
package struct GoogleOAuthErrorResponse: Codable, Sendable, Equatable {
    /// `invalid_grant`, `invalid_scope`, `unsupported_grant_type`, `invalid_request`, ...
    package var error: String
    package var errorDescription: String?

    package enum CodingKeys: String, CodingKey {
        case error
        case errorDescription = "error_description"
    }

    package init(error: String, errorDescription: String?) {
        self.error = error
        self.errorDescription = errorDescription
    }
}
