import Crypto
import Foundation
import ShopkeeperStores
import Testing
import X509

@Suite struct AppleSignedDataVerifierTests {
    let chain: SigningChain
    let verifier: AppleSignedDataVerifier

    init() throws {
        chain = try SigningChain.generate(
            SigningChain.Options(notValidBefore: Date(timeIntervalSinceNow: -30 * 86_400)))
        verifier = try AppleSignedDataVerifier(trustedRoots: [chain.root])
    }

    func payload(signedDate: Date = Date()) -> AppleTransactionPayload {
        AppleTransactionPayload(
            transactionId: "2000000123", originalTransactionId: "2000000123", bundleId: "com.example.app",
            productId: "coins_100", purchaseDate: 1_790_000_000_000, quantity: 1, type: "Consumable",
            signedDate: signedDate.appleMilliseconds, environment: "Sandbox"
        )
    }

    func expect(_ expected: AppleSignedDataError, for token: String) async {
        do {
            _ = try await verifier.verify(token, as: AppleTransactionPayload.self)
            Issue.record("accepted a forgery that should fail with \(expected.code)")
        } catch {
            #expect(error.code == expected.code, "\(error)")
        }
    }

    @Test func acceptsAGenuineTransactionTwiceWithTheCachedChain() async throws {
        let token = try ES256Signer(chain: chain).sign(payload())
        let first = try await verifier.verify(token, as: AppleTransactionPayload.self)
        #expect(first == payload(signedDate: Date(appleMilliseconds: first.signedDate ?? 0)))
        let second = try await verifier.verify(token, as: AppleTransactionPayload.self)
        #expect(second.transactionId == "2000000123")
    }

    @Test func checksDataWithoutASigningDateAtTheCurrentTimeAsApplesLibraryDoes() async throws {
        var unsigned = payload()
        unsigned.signedDate = nil
        let accepted = try await verifier.verify(
            try ES256Signer(chain: chain).sign(unsigned), as: AppleTransactionPayload.self)
        #expect(accepted.signedDate == nil)
        #expect(accepted.transactionId == "2000000123")
        // A chain no longer valid now is refused for such data.
        let expired = try SigningChain.generate(
            SigningChain.Options(
                notValidBefore: Date(timeIntervalSinceNow: -60 * 86_400),
                notValidAfter: Date(timeIntervalSinceNow: -30 * 86_400)))
        let strict = try AppleSignedDataVerifier(trustedRoots: [expired.root])
        let late = try ES256Signer(chain: expired).sign(unsigned)
        do {
            _ = try await strict.verify(late, as: AppleTransactionPayload.self)
            Issue.record("accepted data signed by a chain that expired before now")
        } catch {
            #expect(error.code != AppleSignedDataError.malformed("").code, "\(error)")
        }
    }

    @Test func refusesATamperedPayloadEvenWithAWarmCache() async throws {
        let signer = try ES256Signer(chain: chain)
        let genuine = try signer.sign(payload())
        _ = try await verifier.verify(genuine, as: AppleTransactionPayload.self)
        var richer = payload()
        richer.quantity = 100
        let forged = try signer.sign(richer).split(separator: ".")
        let original = genuine.split(separator: ".")
        await expect(.invalidSignature, for: "\(original[0]).\(forged[1]).\(original[2])")
    }

    @Test func refusesAlgNone() async throws {
        let header = Base64URL.encode(
            try JSONEncoder().encode(JWSHeader(alg: "none", x5c: try chain.x5c())))
        let body = Base64URL.encode(try JSONEncoder().encode(payload()))
        await expect(.unsupportedAlgorithm("none"), for: "\(header).\(body).")
    }

    @Test func refusesHS256KeyedWithTheLeafPublicKey() async throws {
        let header = Base64URL.encode(try JSONEncoder().encode(JWSHeader(alg: "HS256", x5c: try chain.x5c())))
        let body = Base64URL.encode(try JSONEncoder().encode(payload()))
        let key = SymmetricKey(data: chain.leafKey.publicKey.x963Representation)
        let mac = HMAC<SHA256>.authenticationCode(for: Data("\(header).\(body)".utf8), using: key)
        await expect(.unsupportedAlgorithm("HS256"), for: "\(header).\(body).\(Base64URL.encode(Array(mac)))")
    }

    @Test func refusesASignatureByAKeyNotInTheLeaf() async throws {
        let stranger = try ES256Signer(
            key: P256.Signing.PrivateKey(), header: JWSHeader(alg: "ES256", x5c: try chain.x5c()))
        await expect(.invalidSignature, for: try stranger.sign(payload()))
    }

    @Test func refusesAChainOfTwoCertificates() async throws {
        let signer = try ES256Signer(
            key: chain.leafKey, header: JWSHeader(alg: "ES256", x5c: Array(try chain.x5c().prefix(2))))
        await expect(.invalidCertificateChain(""), for: try signer.sign(payload()))
    }

    @Test func refusesALeafOrIntermediateWithoutItsMarker() async throws {
        for options in [SigningChain.Options(leafMarker: false), SigningChain.Options(intermediateMarker: false)] {
            let unmarked = try SigningChain.generate(options, under: chain.root, rootKey: chain.rootKey)
            await expect(.missingMarkerExtension(""), for: try ES256Signer(chain: unmarked).sign(payload()))
        }
    }

    @Test func refusesAChainToAnUntrustedRootThatCopiesApplesExtensionsAndNames() async throws {
        let impostor = try SigningChain.generate()
        #expect(impostor.root.subject == chain.root.subject)
        await expect(.untrustedChain(""), for: try ES256Signer(chain: impostor).sign(payload()))
    }

    @Test func validatesTheChainAtSignedDate() async throws {
        let now = Date()
        let expiredLeaf = try SigningChain.generate(
            SigningChain.Options(
                notValidBefore: now.addingTimeInterval(-30 * 86_400),
                leafValidity: now.addingTimeInterval(-10 * 86_400)...now.addingTimeInterval(-5 * 86_400)),
            under: chain.root, rootKey: chain.rootKey
        )
        let signer = try ES256Signer(chain: expiredLeaf)
        await expect(.certificateNotValidAtSignedDate, for: try signer.sign(payload(signedDate: now)))
        // Signed while the leaf was valid: still a genuine transaction today (Apple's rule).
        let old = try await verifier.verify(
            try signer.sign(payload(signedDate: now.addingTimeInterval(-7 * 86_400))), as: AppleTransactionPayload.self)
        #expect(old.productId == "coins_100")
        // With that chain now cached, a signedDate outside its validity is still refused.
        await expect(.certificateNotValidAtSignedDate, for: try signer.sign(payload(signedDate: now)))
    }

    @Test func refusesTruncatedMalformedAndOversizedInput() async throws {
        let token = try ES256Signer(chain: chain).sign(payload())
        await expect(.malformed(""), for: String(token.prefix(token.count / 2)).replacingOccurrences(of: ".", with: ""))
        await expect(.malformed(""), for: "not a jws")
        await expect(.malformed(""), for: "")
        await expect(.tooLarge(limit: 0), for: token + String(repeating: "A", count: 40_000))
    }

    @Test func truncatedSignatureIsInvalid() async throws {
        let token = try ES256Signer(chain: chain).sign(payload())
        await expect(.invalidSignature, for: String(token.dropLast(10)))
    }

    @Test func builtInAppleRootMatchesItsPublishedFingerprint() throws {
        let root = try AppleRootCertificates.appleRootCAG3()
        #expect(try AppleRootCertificates.fingerprint(of: root) == AppleRootCertificates.appleRootCAG3Fingerprint)
        #expect(root.notValidAfter > Date())
        let receiptRoot = try AppleRootCertificates.appleIncRoot()
        #expect(try AppleRootCertificates.fingerprint(of: receiptRoot) == AppleRootCertificates.appleIncRootFingerprint)
    }
}
