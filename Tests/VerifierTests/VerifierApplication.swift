import Hummingbird

@testable import Verifier

/// The verifier's `buildApplication`, reachable from files that import X509 (whose `Verifier` type shadows the
/// module name).
func makeVerifierApplication(settings: VerifierSettings) async throws -> some ApplicationProtocol {
    try await Verifier.buildApplication(settings: settings)
}
