import Foundation

/// A `/metrics` answer in the Prometheus text format, read as a test needs it: a series' value by name and labels.
struct PrometheusText {
    struct Sample {
        var name: String
        var labels: [String: String]
        var value: Double
    }

    let samples: [Sample]

    init(_ text: String) {
        samples = text.split(separator: "\n").compactMap(Self.parse)
    }

    /// The value of the series `name` whose labels include `labels`, summed when several match; `nil` when none does.
    func value(_ name: String, _ labels: [String: String] = [:]) -> Double? {
        let matching = samples.filter { sample in
            sample.name == name && labels.allSatisfy { sample.labels[$0.key] == $0.value }
        }
        return matching.isEmpty ? nil : matching.reduce(0) { $0 + $1.value }
    }

    /// The names of every series, for a test that holds a dashboard to what the services emit.
    var names: Set<String> { Set(samples.map(\.name)) }

    private static func parse(_ line: Substring) -> Sample? {
        guard !line.hasPrefix("#"), let space = line.lastIndex(of: " "),
            let value = Double(line[line.index(after: space)...])
        else { return nil }
        let series = line[..<space]
        guard let brace = series.firstIndex(of: "{") else {
            return Sample(name: String(series), labels: [:], value: value)
        }
        var labels: [String: String] = [:]
        // `name="value"` pairs; the services' label values hold no quotes or commas.
        for pair in series[series.index(after: brace)...].dropLast().split(separator: ",") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            guard parts.count == 2 else { continue }
            labels[String(parts[0])] = String(parts[1].dropFirst().dropLast())
        }
        return Sample(name: String(series[..<brace]), labels: labels, value: value)
    }
}

extension ServiceProcess {
    /// This process's `/metrics` (on `port`: the gateway's metrics listener), parsed.
    func metrics(port: Int? = nil) async throws -> PrometheusText {
        let answer = try await get("/metrics", port: port)
        guard answer.status == .ok else { throw Failure("\(name) /metrics answered \(answer.status)") }
        return PrometheusText(String(decoding: answer.body, as: UTF8.self))
    }
}
