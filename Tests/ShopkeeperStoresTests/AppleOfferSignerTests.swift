import Crypto
import Foundation
import ShopkeeperStores
import Testing

@Suite struct AppleOfferSignerTests {
    static let key = P256.Signing.PrivateKey()
    static let signer = AppleOfferSigner(
        key: key, keyID: "2X9R4HXF34", issuerID: "57246542-96fe-1a63-e053-0824d011072a", bundleID: "com.example.garden")

    @Test func theClassicSignatureSignsApplesMessageWithTheKey() throws {
        let nonce = try #require(UUID(uuidString: "A7D3C2B1-0F1E-4D2C-9B8A-7E6F5D4C3B2A"))
        let now = Date(timeIntervalSince1970: 1_764_150_000.123)
        let signed = try Self.signer.classicSignature(
            productID: "com.example.garden.club", offerID: "comeback50",
            applicationUsername: "0B6C2A57-8F1E-5D3A-9C47-2E81F0D4B6A9", nonce: nonce, now: now)
        #expect(signed.keyID == "2X9R4HXF34")
        #expect(signed.timestamp == 1_764_150_000_123)
        // The message as Apple's documentation spells it: fields joined by U+2063, the username and nonce
        // lowercased, the timestamp in milliseconds.
        let message =
            "com.example.garden\u{2063}2X9R4HXF34\u{2063}com.example.garden.club\u{2063}comeback50\u{2063}"
            + "0b6c2a57-8f1e-5d3a-9c47-2e81f0d4b6a9\u{2063}a7d3c2b1-0f1e-4d2c-9b8a-7e6f5d4c3b2a\u{2063}1764150000123"
        let der = try #require(Data(base64Encoded: signed.signature))
        let signature = try P256.Signing.ECDSASignature(derRepresentation: der)
        #expect(Self.key.publicKey.isValidSignature(signature, for: Data(message.utf8)))
        #expect(!Self.key.publicKey.isValidSignature(signature, for: Data((message + "0").utf8)))
    }

    @Test func thePromotionalOfferJWSCarriesApplesClaims() throws {
        let now = Date(timeIntervalSince1970: 1_764_150_000)
        let jws = try Self.signer.promotionalOfferJWS(
            productID: "com.example.garden.club", offerID: "comeback50", transactionID: "2000000412345000", now: now)
        let (header, claims) = try Self.verified(jws)
        #expect(header["alg"] as? String == "ES256")
        #expect(header["kid"] as? String == "2X9R4HXF34")
        #expect(header["typ"] as? String == "JWT")
        #expect(claims["aud"] as? String == "promotional-offer")
        #expect(claims["bid"] as? String == "com.example.garden")
        #expect(claims["iss"] as? String == "57246542-96fe-1a63-e053-0824d011072a")
        #expect(claims["iat"] as? Int == 1_764_150_000)
        #expect(claims["productId"] as? String == "com.example.garden.club")
        #expect(claims["offerIdentifier"] as? String == "comeback50")
        #expect(claims["transactionId"] as? String == "2000000412345000")
        #expect(UUID(uuidString: claims["nonce"] as? String ?? "") != nil)
        #expect(claims["allowIntroductoryOffer"] == nil)

        let withoutTransaction = try Self.signer.promotionalOfferJWS(
            productID: "com.example.garden.club", offerID: "comeback50", transactionID: nil)
        #expect(try Self.verified(withoutTransaction).claims["transactionId"] == nil)
    }

    @Test func theIntroductoryOfferEligibilityJWSCarriesApplesClaims() throws {
        let jws = try Self.signer.introductoryOfferEligibilityJWS(
            productID: "com.example.garden.club", allowIntroductoryOffer: false, transactionID: "2000000412345000")
        let (_, claims) = try Self.verified(jws)
        #expect(claims["aud"] as? String == "introductory-offer-eligibility")
        #expect(claims["allowIntroductoryOffer"] as? Bool == false)
        #expect(claims["transactionId"] as? String == "2000000412345000")
        #expect(claims["offerIdentifier"] == nil)
    }

    /// The header and claims of `jws`, whose signature must verify with the signer's key.
    static func verified(_ jws: String) throws -> (header: [String: Any], claims: [String: Any]) {
        let parts = jws.split(separator: ".").map(String.init)
        try #require(parts.count == 3)
        let signatureBytes = try #require(Self.decode(parts[2]))
        let signature = try P256.Signing.ECDSASignature(rawRepresentation: signatureBytes)
        #expect(key.publicKey.isValidSignature(signature, for: Data("\(parts[0]).\(parts[1])".utf8)))
        let headerBytes = try #require(Self.decode(parts[0]))
        let claimBytes = try #require(Self.decode(parts[1]))
        let header = try JSONSerialization.jsonObject(with: headerBytes) as? [String: Any]
        let claims = try JSONSerialization.jsonObject(with: claimBytes) as? [String: Any]
        return (try #require(header), try #require(claims))
    }

    static func decode(_ segment: String) -> Data? {
        var base64 = segment.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)
    }
}
