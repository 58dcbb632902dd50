import Foundation
import ShopkeeperCore
import Testing

/// `shopkeeper --version`: the built tool names the release that `ShopkeeperVersion` holds, the one place it is
/// written, so an operator can tell which Shopkeeper a binary (or an image) carries.
@Suite struct CLIVersionTests {
    @Test func versionFlagPrintsTheReleaseVersion() throws {
        let result = try runCLI(["--version"])
        #expect(result.status == 0)
        #expect(result.output.trimmingCharacters(in: .whitespacesAndNewlines) == ShopkeeperVersion.current)
    }

    /// `content push --version` names a pack's version: it still reaches the command (which then finds no files),
    /// rather than printing the tool's version.
    @Test func contentPushKeepsItsOwnVersionOption() throws {
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("no-pack-\(UUID().uuidString)")
        let result = try runCLI([
            "content", "push", missing.path, "--product", "seeds", "--version", "1.0.0", "--secret-key", "sk_unused",
            "--gateway-url", "http://127.0.0.1:9",
        ])
        #expect(result.status != 0)
        #expect(result.output.contains("has no files to upload"))
        #expect(!result.output.contains(ShopkeeperVersion.current))
    }
}
