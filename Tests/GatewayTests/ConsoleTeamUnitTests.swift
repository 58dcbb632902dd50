import Foundation
import ShopkeeperModels
import Testing

@testable import Gateway

/// The team's building blocks against their standards' own test vectors: TOTP (RFC 6238 Appendix B, over RFC 4226's
/// HOTP, Appendix D), scrypt (RFC 7914, section 12), and the role table's reading.
@Suite struct ConsoleTeamUnitTests {
    /// RFC 4226 and RFC 6238's shared secret: the ASCII string "12345678901234567890".
    static let rfcSecret = Array("12345678901234567890".utf8)

    @Test func hotpMatchesRFC4226AppendixD() {
        let expected = [
            "755224", "287082", "359152", "969429", "338314", "254676", "287922", "162583", "399871", "520489",
        ]
        for (counter, code) in expected.enumerated() {
            #expect(TOTP.code(secret: Self.rfcSecret, step: Int64(counter)) == code, "counter \(counter)")
        }
    }

    @Test func totpMatchesRFC6238AppendixBForSHA1() {
        // Time (s), TOTP (8 digits, SHA1).
        let vectors: [(Int64, String)] = [
            (59, "94287082"), (1_111_111_109, "07081804"), (1_111_111_111, "14050471"),
            (1_234_567_890, "89005924"), (2_000_000_000, "69279037"), (20_000_000_000, "65353130"),
        ]
        for (time, code) in vectors {
            let step = TOTP.step(at: Date(timeIntervalSince1970: TimeInterval(time)))
            #expect(TOTP.code(secret: Self.rfcSecret, step: step, digits: 8) == code, "T = \(time)")
        }
    }

    @Test func aCodeIsAcceptedOneStepEitherSideAndNeverForAStepUsedAlready() {
        let now = Date(timeIntervalSince1970: 1_111_111_111)
        let step = TOTP.step(at: now)
        for offset in -1...1 {
            let code = TOTP.code(secret: Self.rfcSecret, step: step + Int64(offset))
            #expect(TOTP.acceptedStep(code: code, secret: Self.rfcSecret, at: now, after: nil) == step + Int64(offset))
        }
        let stale = TOTP.code(secret: Self.rfcSecret, step: step - 2)
        #expect(TOTP.acceptedStep(code: stale, secret: Self.rfcSecret, at: now, after: nil) == nil)
        let current = TOTP.code(secret: Self.rfcSecret, step: step)
        #expect(TOTP.acceptedStep(code: current, secret: Self.rfcSecret, at: now, after: step) == nil)
        #expect(TOTP.acceptedStep(code: current, secret: Self.rfcSecret, at: now, after: step - 1) == step)
        #expect(TOTP.acceptedStep(code: "12345", secret: Self.rfcSecret, at: now, after: nil) == nil)
        #expect(TOTP.acceptedStep(code: "１２３４５６", secret: Self.rfcSecret, at: now, after: nil) == nil)
        // RFC 4648's base32 of the secret, as authenticator apps take it.
        #expect(TOTP.base32(Self.rfcSecret) == "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ")
        #expect(
            TOTP.uri(secret: Self.rfcSecret, account: "ann@example.com", issuer: "Shopkeeper").hasPrefix(
                "otpauth://totp/Shopkeeper%3Aann@example.com?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&issuer=Shopkeeper")
        )
    }

    @Test func scryptMatchesRFC7914() async throws {
        // Section 12, second vector: P = "password", S = "NaCl", N = 1024, r = 8, p = 16; the first 32 bytes of its
        // 64 (PBKDF2's blocks are independent, so they are the 32-byte key).
        let derived = "fdbabe1c9d3472007856e7190d01e9fe7c6ad7cbc8237830e77376634b373162"
        let bytes = stride(from: 0, to: derived.count, by: 2).map {
            UInt8(derived[derived.index(derived.startIndex, offsetBy: $0)...].prefix(2), radix: 16) ?? 0
        }
        let stored =
            "$scrypt$ln=10,r=8,p=16$" + Data("NaCl".utf8).base64EncodedString().replacingOccurrences(of: "=", with: "")
            + "$" + Data(bytes).base64EncodedString().replacingOccurrences(of: "=", with: "")
        let hasher = PasswordHasher(parameters: .init(logN: 10, r: 8, p: 1))
        #expect(try await hasher.verify("password", against: stored))
        #expect(try await !hasher.verify("Password", against: stored))
        #expect(try await !hasher.verify("password", against: "$scrypt$ln=99,r=8,p=1$AAAA$AAAA"))
    }

    @Test func aHashKeepsItsParametersAndIsRedoneWhenTheCostRises() async throws {
        let cheap = PasswordHasher(parameters: .init(logN: 10, r: 8, p: 1))
        let stored = try await cheap.hash("correct horse battery")
        #expect(stored.hasPrefix("$scrypt$ln=10,r=8,p=1$"))
        #expect(try await cheap.verify("correct horse battery", against: stored))
        #expect(try await !cheap.verify("correct horse battery!", against: stored))
        #expect(try await cheap.hash("correct horse battery") != stored)  // a new salt each time
        #expect(!cheap.needsRehash(stored))
        let dearer = PasswordHasher(parameters: .init(logN: 11, r: 8, p: 1))
        #expect(dearer.needsRehash(stored))
        // The stored parameters, not the configured ones, check it.
        #expect(try await dearer.verify("correct horse battery", against: stored))
    }

    @Test func emailsAreNormalizedAndCheckedLoosely() throws {
        #expect(try ConsoleTeam.normalize(email: "  Ann.Lee@Example.COM ") == "ann.lee@example.com")
        for bad in ["", "ann", "@example.com", "ann@", "ann@example", "a b@example.com", "ann@@example.com"] {
            #expect(throws: (any Error).self, "\(bad)") { try ConsoleTeam.normalize(email: bad) }
        }
    }

    @Test func theRoleTableDecidesByMethodAndPrefixAndLeavesTheRestToAdmins() {
        #expect(ConsoleRoles.minimum(.get, path: "/v1/admin/reports/sales") == .viewer)
        #expect(ConsoleRoles.minimum(.get, path: "/v1/admin/products") == .viewer)
        #expect(ConsoleRoles.minimum(.post, path: "/v1/admin/products") == .developer)
        #expect(ConsoleRoles.minimum(.post, path: "/v1/customers/ann/grants") == .support)
        #expect(ConsoleRoles.minimum(.get, path: "/v1/admin/stores/apple/orders/1") == .support)
        #expect(ConsoleRoles.minimum(.get, path: "/v1/admin/stores") == .developer)
        #expect(ConsoleRoles.minimum(.put, path: "/v1/admin/stores/apple") == .admin)
        #expect(ConsoleRoles.minimum(.get, path: "/v1/admin/audit-log") == .admin)
        #expect(ConsoleRoles.minimum(.get, path: "/v1/admin/something-new") == .admin)
        #expect(ConsoleRoles.minimum(.get, path: "//v1//admin/reports/sales") == .viewer)
        // Dot segments could name another route after normalizing: admin only.
        #expect(ConsoleRoles.minimum(.get, path: "/v1/customers/../admin/keys") == .admin)
        #expect(ConsoleRoles.minimum(.get, path: "/v1/customers/%2e%2E/admin/keys") == .admin)
        #expect(throws: ConsoleRoleError(role: .viewer, minimum: .support)) {
            try ConsoleRoles.authorize(.viewer, .get, path: "/v1/customers/ann")
        }
        #expect(ConsoleRole.viewer < .support && .support < .developer && .developer < .admin)
    }
}
