import Testing

@testable import Verifier

@Suite struct RetryPolicyTests {
    @Test func backoffDoublesUpToTheCap() {
        let policy = RetryPolicy(attempts: 6, base: .milliseconds(300), cap: .seconds(2))
        #expect(
            (1...5).map { policy.backoff(after: $0) } == [
                .milliseconds(300), .milliseconds(600), .milliseconds(1200), .seconds(2), .seconds(2),
            ])
    }

    @Test func retriesStopAfterTheLastAttemptWithA503() async throws {
        let policy = RetryPolicy(attempts: 3, base: .milliseconds(1))
        let counter = Counter()
        do {
            _ = try await policy.run(store: "App Store") { (_: Int) async throws(StoreAttemptError) -> Int in
                await counter.increment()
                throw .retryable(reason: "timed out", retryAfter: nil)
            }
            Issue.record("a call that never answers succeeded")
        } catch {
            #expect(error.code == "store_unavailable")
            #expect(error.status == .serviceUnavailable)
            #expect(error.headers[.retryAfter] == "2")
        }
        #expect(await counter.value == 3)
    }

    @Test func aVerdictIsNotRetriedAndARetryAfterBeyondTheCapStopsAtOnce() async throws {
        let policy = RetryPolicy(attempts: 5, base: .milliseconds(1))
        let verdicts = Counter()
        await #expect(throws: VerifierError.self) {
            try await policy.run(store: "x") { (_: Int) async throws(StoreAttemptError) -> Int in
                await verdicts.increment()
                throw .final(.proofRejected(code: "invalid_signature", detail: ""))
            }
        }
        #expect(await verdicts.value == 1)

        let patient = Counter()
        do {
            _ = try await policy.run(store: "x") { (_: Int) async throws(StoreAttemptError) -> Int in
                await patient.increment()
                throw .retryable(reason: "429", retryAfter: .seconds(30))
            }
        } catch {
            #expect(error.headers[.retryAfter] == "30")
        }
        #expect(await patient.value == 1)

        let flaky = Counter()
        let answer = try await policy.run(store: "x") { (attempt: Int) async throws(StoreAttemptError) -> Int in
            await flaky.increment()
            if attempt < 3 { throw .retryable(reason: "503", retryAfter: nil) }
            return 42
        }
        #expect(answer == 42)
        #expect(await flaky.value == 3)
    }
}

actor Counter {
    private(set) var value = 0
    func increment() { value += 1 }
}
