import Crypto
import Foundation
import NIOHTTP1
import Testing

/// A teammate's own steps in the browser (same suite and stack as ``ConsoleBrowserTests``): setting a password with
/// the invitation token on the sign-in screen, turning on a second factor on "Your account", and signing in with a
/// code from then on. The codes are computed here, from RFC 6238, not by the server's code.
extension ConsoleBrowserTests {
    @Test func aTeammateSetsAPasswordTurnsOnASecondFactorAndSignsInWithIt() async throws {
        let world = try self.world
        let email = "totp@example.com"
        let (status, body) = try await world.api(.POST, "/v1/admin/users", json: ["email": email, "role": "viewer"])
        #expect(status == 201)
        let token = try #require((body as? [String: Any])?["invitation_token"] as? String)
        let password = "a long enough password for totp"
        try await world.browse("console-account") { browser in
            try await browser.element("#invitation-token").type(token)
            try await browser.element("#invitation-password").type(password)
            try await browser.element("#invitation-submit").click()
            _ = try await browser.text(of: "#sign-in-notice") { $0.contains("password is set") }
            try await Self.signInAsMember(browser, world, email: email, password: password)

            try await world.go(browser, "/account")
            try await world.waitForPage(browser, "Your account")
            try await browser.element("#totp-begin").click()
            let secret = try await browser.text(of: "#totp-secret") { !$0.isEmpty }
            let key = try #require(Self.base32Bytes(secret))
            let step = Int64(Date().timeIntervalSince1970) / 30
            try await browser.element("#totp-confirm input[name=code]").type(Self.totp(key, step: step))
            try await browser.element("#totp-confirm button[type=submit]").click()
            _ = try await browser.text(of: "#status") { $0.contains("second factor is on") }

            // Signed out, the password alone is not enough: the form asks for the code, and the next one signs in.
            try await browser.element("#sign-out").click()
            _ = try await browser.text(of: "#sign-in-notice") { $0.contains("signed out") }
            // The app id and email stay in the form from the last sign-in; the password does not.
            #expect(try await browser.element("#team-sign-in-email").property("value") as? String == email)
            try await browser.element("#team-sign-in-password").type(password)
            try await browser.element("#team-sign-in-submit").click()
            _ = try await browser.text(of: "#team-sign-in-error") { $0.contains("one-time code") }
            try await browser.element("#team-sign-in-code").type(Self.totp(key, step: step + 1))
            try await browser.element("#team-sign-in-submit").click()
            _ = try await browser.element("#who", containing: "\(email) (viewer)")
        }
    }

    /// RFC 4648 base32 (no padding) as bytes: five bits a letter, eight bits a byte.
    static func base32Bytes(_ text: String) -> [UInt8]? {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
        let values = text.map { alphabet.firstIndex(of: $0) }
        guard values.allSatisfy({ $0 != nil }) else { return nil }
        let bits = values.compactMap { $0 }.flatMap { value in (0..<5).reversed().map { (value >> $0) & 1 } }
        return stride(from: 0, to: bits.count - bits.count % 8, by: 8).map { start in
            bits[start..<start + 8].reduce(UInt8(0)) { ($0 << 1) | UInt8($1) }
        }
    }

    /// The RFC 6238 code of `step` (HMAC-SHA1, six digits).
    static func totp(_ key: [UInt8], step: Int64) -> String {
        let counter = withUnsafeBytes(of: UInt64(step).bigEndian) { Array($0) }
        let mac = Array(HMAC<Insecure.SHA1>.authenticationCode(for: counter, using: SymmetricKey(data: key)))
        let offset = Int(mac[19] & 0x0f)
        let number = mac[offset..<offset + 4].reduce(UInt32(0)) { ($0 << 8) | UInt32($1) } & 0x7fff_ffff
        return String(format: "%06u", number % 1_000_000)
    }
}
