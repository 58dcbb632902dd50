import ShopkeeperCore
import ShopkeeperHTTP
import Testing

/// Tracing is off and the backlog gauges are read every 15 s unless the environment says otherwise; a bad value
/// stops the process naming the variable.
@Suite struct ObservabilitySettingsTests {
    @Test func defaultsAreTracingOffAndGaugesEvery15Seconds() throws {
        let settings = try ObservabilitySettings.read(from: EnvironmentReader([:]))
        #expect(settings == ObservabilitySettings(tracing: .off, backlogInterval: .seconds(15)))
        #expect(!settings.isTracing)
    }

    @Test func otlpTurnsTracingOnAndZeroTurnsTheGaugesOff() throws {
        let settings = try ObservabilitySettings.read(
            from: EnvironmentReader([
                "SHOPKEEPER_TRACING": "otlp", "SHOPKEEPER_BACKLOG_METRICS_INTERVAL_SECONDS": "0",
            ]))
        #expect(settings.isTracing)
        #expect(settings.backlogInterval == nil)
    }

    @Test(arguments: [
        ("SHOPKEEPER_TRACING", "jaeger"), ("SHOPKEEPER_BACKLOG_METRICS_INTERVAL_SECONDS", "-1"),
        ("SHOPKEEPER_BACKLOG_METRICS_INTERVAL_SECONDS", "soon"),
    ])
    func badValuesNameTheirVariable(name: String, value: String) {
        #expect(throws: ConfigurationError.self) {
            try ObservabilitySettings.read(from: EnvironmentReader([name: value]))
        }
        do {
            _ = try ObservabilitySettings.read(from: EnvironmentReader([name: value]))
        } catch {
            #expect(error.variable == name)
        }
    }
}
