import Foundation
import Logging
import ShopkeeperCore
import Testing

/// The log line's shape: operators' log pipelines parse `ts` as RFC 3339 with milliseconds, in UTC.
@Suite struct JSONLogHandlerTests {
    /// `2026-05-01T09:41:07.042Z`.
    static func isRFC3339Milliseconds(_ text: String) -> Bool {
        text.wholeMatch(of: #/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z/#) != nil
    }

    @Test(arguments: [
        (0, 0, "1970-01-01T00:00:00.000Z"),
        (1_700_000_000, 7, "2023-11-14T22:13:20.007Z"),
        (951_782_400, 999, "2000-02-29T00:00:00.999Z"),
        (4_102_444_799, 42, "2099-12-31T23:59:59.042Z"),
    ])
    func formatsSecondsAndMilliseconds(seconds: Int, milliseconds: Int, expected: String) {
        #expect(LogTimestamp.format(seconds: seconds, milliseconds: milliseconds) == expected)
    }

    @Test func nowHasMillisecondsAndAgreesWithTheClock() throws {
        let before = Date()
        let stamp = LogTimestamp.now()
        let after = Date()
        #expect(Self.isRFC3339Milliseconds(stamp), "\(stamp)")
        let parsed = try #require(
            try? Date(stamp, strategy: .iso8601.year().month().day().time(includingFractionalSeconds: true)))
        #expect(parsed >= before.addingTimeInterval(-0.001) && parsed <= after.addingTimeInterval(0.001))
    }

    @Test func lineIsOneJSONObjectWithMillisecondTimestampAndMetadata() throws {
        var handler = JSONLogHandler(label: "verifier", level: .info, metadataProvider: .init { ["trace_id": "abc"] })
        handler[metadataKey: "request_id"] = "r-1"
        let event = LogEvent(
            level: .warning, message: "store said \"no\"", metadata: ["code": "invalid_jws"], source: "Verifier",
            file: #fileID, function: #function, line: #line)
        let line = handler.line(for: event, timestamp: LogTimestamp.now())
        #expect(line.hasSuffix("}\n") && line.filter { $0 == "\n" }.count == 1)
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String])
        let stamp = try #require(object["ts"])
        #expect(Self.isRFC3339Milliseconds(stamp), "\(stamp)")
        #expect(object["level"] == "warning")
        #expect(object["service"] == "verifier")
        #expect(object["msg"] == "store said \"no\"")
        #expect(object["request_id"] == "r-1")
        #expect(object["code"] == "invalid_jws")
        #expect(object["trace_id"] == "abc")
    }
}
