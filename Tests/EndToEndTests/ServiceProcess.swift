import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import ShopkeeperTestSupport

/// A built Shopkeeper executable running as its own process, as in production.
final class ServiceProcess: @unchecked Sendable {
    let name: String
    /// The port it listens on: a free one when none is given, chosen again when another server took it first.
    private(set) var port: Int
    /// The gateway's `/metrics` listener (`SHOPKEEPER_GATEWAY_METRICS_PORT`; other services ignore it).
    private(set) var metricsPort: Int
    private var process: Process
    private(set) var logURL: URL
    private let binPath: String
    /// Whether the caller chose the ports (a restart on the same port): then a taken port is an error, not a retry.
    private let portsGiven: Bool

    var baseURL: String { "http://127.0.0.1:\(port)" }

    struct NotBuilt: Error, CustomStringConvertible {
        var description: String {
            "SHOPKEEPER_BIN_PATH is not set: run the tests with scripts/test, which builds the executables"
        }
    }

    /// What the process was started with, to start it again.
    let environment: [String: String]

    /// Starts `executable` (e.g. `shopkeeper-catalog`) with `environment` on `port` and `metricsPort` (free ones by
    /// default).
    init(_ executable: String, environment: [String: String], port: Int? = nil, metricsPort: Int? = nil) throws {
        guard let binPath = ProcessInfo.processInfo.environment["SHOPKEEPER_BIN_PATH"] else { throw NotBuilt() }
        self.name = executable
        self.environment = environment
        self.binPath = binPath
        self.portsGiven = port != nil
        let port = try port ?? Self.freePort()
        self.port = port
        // Two picks of a free port can be the same port (neither is held): the metrics port must differ.
        var metrics = try metricsPort ?? Self.freePort()
        while metrics == port, metricsPort == nil { metrics = try Self.freePort() }
        self.metricsPort = metrics
        (process, logURL) = try Self.launch(
            executable, binPath: binPath, environment: environment, port: self.port, metricsPort: self.metricsPort)
    }

    /// Runs the executable with its log in a file of its own.
    private static func launch(
        _ executable: String, binPath: String, environment: [String: String], port: Int, metricsPort: Int
    ) throws -> (Process, URL) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binPath).appendingPathComponent(executable)
        var env = ProcessInfo.processInfo.environment
        // Every test caller comes from 127.0.0.1: a public key's per-client limit is its ceiling here.
        env["SHOPKEEPER_RATE_LIMIT_PUBLIC_CLIENT"] = "1000/2000"
        env.merge(environment) { _, new in new }
        env["SHOPKEEPER_PORT"] = String(port)
        env["SHOPKEEPER_HOST"] = "127.0.0.1"
        env["SHOPKEEPER_GATEWAY_METRICS_PORT"] = String(metricsPort)
        process.environment = env
        let logURL = FileManager.default.temporaryDirectory.appendingPathComponent("\(executable)-\(port).log")
        FileManager.default.createFile(atPath: logURL.path, contents: nil)
        let log = try FileHandle(forWritingTo: logURL)
        process.standardOutput = log
        process.standardError = log
        try process.run()
        // The child has its own copy; keeping ours would leak a descriptor per process started.
        try log.close()
        return (process, logURL)
    }

    /// Waits until this process listens on its port and `/health/ready` answers 200; throws with the log's tail when
    /// the process dies or takes too long. The port was free when chosen, but another test's server may have taken it
    /// since: then this process cannot bind it (it is started again on new free ports), and the other server's health
    /// must not pass for this one's. Read ``port`` and ``baseURL`` after this returns. The default leaves three
    /// minutes: with eight tests at once each starting a whole system on two cores, a service migrating its schema
    /// has been seen to need more than one (a process that fails exits, which ends the wait at once).
    func waitUntilReady(timeout: Duration = .seconds(180)) async throws {
        let deadline = ContinuousClock.now + timeout
        var relaunches = 0
        while ContinuousClock.now < deadline {
            guard process.isRunning else {
                // Another test's server took a port between choosing it and binding it: choose again.
                if !portsGiven, relaunches < 5, logTail().contains("Address already in use") {
                    relaunches += 1
                    port = try Self.freePort()
                    metricsPort = try Self.freePort()
                    while metricsPort == port { metricsPort = try Self.freePort() }
                    (process, logURL) = try Self.launch(
                        name, binPath: binPath, environment: environment, port: port, metricsPort: metricsPort)
                    continue
                }
                throw Failure("\(name) exited (\(process.terminationStatus)): \(logTail())")
            }
            if isListening, let status = try? await get("/health/ready").status, status == .ok { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw Failure("\(name) was not ready in time: \(logTail())")
    }

    /// GETs `path` on the process's port, or on `port` (its ``metricsPort``).
    func get(_ path: String, headers: [(String, String)] = [], port: Int? = nil) async throws
        -> (status: HTTPResponseStatus, body: Data)
    {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port ?? self.port)" + path)
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
        let body = try await response.body.collect(upTo: 16 << 20)
        return (response.status, Data(body.readableBytesView))
    }

    /// POSTs a JSON body.
    func post(_ path: String, json: Data, headers: [(String, String)] = []) async throws
        -> (status: HTTPResponseStatus, body: Data)
    {
        var request = HTTPClientRequest(url: baseURL + path)
        request.method = .POST
        request.headers.add(name: "content-type", value: "application/json")
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        request.body = .bytes(ByteBuffer(bytes: json))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
        let body = try await response.body.collect(upTo: 16 << 20)
        return (response.status, Data(body.readableBytesView))
    }

    /// Sends SIGTERM and waits for the process to exit; returns its exit status.
    /// (The generous default is for a loaded machine running the whole suite at once.)
    func terminate(timeout: Duration = .seconds(30)) async throws -> Int32 {
        if process.isRunning { process.terminate() }
        let deadline = ContinuousClock.now + timeout
        while process.isRunning {
            guard ContinuousClock.now < deadline else {
                kill(process.processIdentifier, SIGKILL)
                throw Failure("\(name) ignored SIGTERM: \(logTail())")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        return process.terminationStatus
    }

    /// Sends SIGTERM and fails with the process's log unless it shuts down gracefully with exit status 0.
    func stop(timeout: Duration = .seconds(30)) async throws {
        let status = try await terminate(timeout: timeout)
        guard status == 0 else {
            throw Failure("\(name) exited with status \(status) after SIGTERM: \(logTail())")
        }
    }

    /// Kills the process at once (SIGKILL: no graceful shutdown, as in a crash) and waits until it is gone.
    func crash() async throws {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        _ = try await waitForExit(timeout: .seconds(10))
    }

    /// The same executable started again on the same port with the same environment.
    func restarted() throws -> ServiceProcess {
        try ServiceProcess(name, environment: environment, port: port, metricsPort: metricsPort)
    }

    /// Waits for the process to exit by itself; returns its exit status.
    func waitForExit(timeout: Duration) async throws -> Int32 {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning {
            guard ContinuousClock.now < deadline else { throw Failure("\(name) did not exit: \(logTail())") }
            try await Task.sleep(for: .milliseconds(50))
        }
        return process.terminationStatus
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    /// Whether the process has logged that it listens on its port (Hummingbird's start message).
    var isListening: Bool {
        let text = (try? String(contentsOf: logURL, encoding: .utf8)) ?? ""
        return text.contains("listening on 127.0.0.1:\(port)") || text.contains("listening on localhost:\(port)")
    }

    func logTail() -> String {
        let text = (try? String(contentsOf: logURL, encoding: .utf8)) ?? ""
        return String(text.suffix(2000))
    }

    /// A port nothing listens on right now.
    static func freePort() throws -> Int {
        let channel = try ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .bind(host: "127.0.0.1", port: 0).wait()
        let port = channel.localAddress?.port ?? 0
        try channel.close().wait()
        return port
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }
}

/// Runs the `shopkeeper` command-line tool and returns its output.
func runCLI(_ arguments: [String], environment: [String: String] = [:]) throws -> (status: Int32, output: String) {
    guard let binPath = ProcessInfo.processInfo.environment["SHOPKEEPER_BIN_PATH"] else {
        throw ServiceProcess.NotBuilt()
    }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: binPath).appendingPathComponent("shopkeeper")
    process.arguments = arguments
    var env = ProcessInfo.processInfo.environment
    env.merge(environment) { _, new in new }
    process.environment = env
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
}
