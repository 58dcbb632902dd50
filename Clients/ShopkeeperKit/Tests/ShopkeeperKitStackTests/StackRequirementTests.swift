import Foundation
import Testing

/// The test command sets `SHOPKEEPER_KIT_REQUIRE_STACK=1`: there, a missing stack fails instead of skipping.
@Suite struct StackRequirementTests {
    @Test func theStackIsThereWhenRequired() {
        if ProcessInfo.processInfo.environment["SHOPKEEPER_KIT_REQUIRE_STACK"] == "1" {
            #expect(Stack.available, "SHOPKEEPER_KIT_STACK_ENV names no usable local.env")
        }
    }
}
