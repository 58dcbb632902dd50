import Crypto
import Foundation
import ShopkeeperStores
import Testing

@testable import Verifier

/// The App Store Connect API's bearer token, as Apple documents it.
@Suite struct AppStoreConnectTokenTests {
    @Test func theTokenIsAnES256JWTWithTheKeyIdAndTwentyMinutesAtMost() throws {
        let key = P256.Signing.PrivateKey()
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let (token, lifetime) = try AppStoreConnectClient.makeToken(
            key: AppStoreAPIKey(issuerID: "issuer-1", keyID: "KEY123ABCD", privateKey: key.pemRepresentation), now: now)
        let jws = try #require(CompactJWS(token))
        #expect(jws.header.alg == "ES256")
        #expect(jws.header.kid == "KEY123ABCD")
        #expect(jws.header.typ == "JWT")
        #expect(jws.hasValidES256Signature(by: key.publicKey))
        let claims = try #require(jws.decodedPayload(as: AppStoreConnectClaims.self))
        #expect(claims.iss == "issuer-1")
        #expect(claims.aud == "appstoreconnect-v1")
        #expect(claims.iat == 1_800_000_000 - 60)
        #expect(claims.exp - claims.iat <= 20 * 60)
        #expect(claims.exp > Int64(now.timeIntervalSince1970))
        // Renewed before it expires.
        #expect(lifetime < TimeInterval(claims.exp - Int64(now.timeIntervalSince1970)))
    }

    @Test(arguments: [
        ("APPROVED", "approved"), ("WAITING_FOR_REVIEW", "waiting_for_review"), ("IN_REVIEW", "in_review"),
        ("DEVELOPER_ACTION_NEEDED", "rejected"), ("REJECTED", "rejected"), ("DEVELOPER_REMOVED_FROM_SALE", "removed"),
        ("READY_TO_SUBMIT", "pending_developer_approval"), ("SOMETHING_NEW", "pending_developer_approval"),
    ])
    func reviewStatesMapToTheCatalogsWords(store: String, catalog: String) {
        #expect(AppStoreConnectMapping.reviewState(store).rawValue == catalog)
    }
}
