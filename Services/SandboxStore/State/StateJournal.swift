import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// State the sandbox keeps through a ``StateJournal``: a snapshot that can say what changed since it was last asked,
/// as one log line, and apply such a line read back.
protocol JournaledState: Codable {
    /// One log line: what changed.
    associatedtype Change: Codable
    /// The empty state (nothing saved yet).
    init()
    /// The file format a snapshot is written in.
    static var formatVersion: Int { get }
    /// The file format of a snapshot read.
    var version: Int { get set }
    /// The log that continues this snapshot.
    var logGeneration: Int { get set }
    /// What changed since the last call (`nil`: nothing), and forgets it.
    mutating func takeChange() -> Change?
    /// Applies one line of the log.
    mutating func apply(_ change: Change) throws(StateJournalError)
}

/// Keeps a part of the sandbox's state on disk as a snapshot and a log of changes, so that a change costs what it
/// changed, not the size of the whole state (rewriting `state.json` on every purchase made purchases slower and
/// slower: ~14/s after 6,000). Two parts are kept so, each under its own name: the store's purchases (`state`,
/// ``SandboxSnapshot``) and the notifications it sent (`notifications`, ``NotificationSnapshot``).
///
/// - **Snapshot** `<name>.json` (e.g. ``SandboxSnapshot``): written only when the log is compacted, to a temporary
///   file that is flushed to disk (`fsync`) and renamed over the old one, then the directory is flushed.
/// - **Log** `<name>.<generation>.log`: one JSON line (e.g. ``StateChange``) per operation that changed something,
///   appended with a single `write(2)` to a file opened `O_APPEND`. The snapshot names the log that continues it
///   (``JournaledState/logGeneration``); compaction writes a snapshot naming the next generation and only then
///   deletes the old log, so a crash anywhere leaves one consistent pair.
/// - **Durability**: a change is in the operating system's hands once its `write` returns: it survives the process
///   being killed or crashing. With `fsyncEachChange` (`SHOPKEEPER_SANDBOX_STATE_FSYNC=true`) each append is also
///   flushed to disk (`fdatasync`) before the operation answers, which survives a power loss too but costs a disk
///   flush per purchase; the default leaves that to the kernel, as befits a development store.
/// - **Start**: the snapshot is read (a `state.json` of format 1, the old whole-file state, is the snapshot of
///   generation 0 with no log) and its log replayed. A last line cut short (the process died inside its `write`) is
///   dropped; any other unreadable line stops the start. Then the log is compacted, so every run starts with an
///   empty log.
/// - **Compaction while running**: when the log outgrows both a floor (8 MiB) and the last snapshot, the state
///   is written as a new snapshot: its cost is spread over at least as many bytes of appends as it writes.
final class StateJournal<State: JournaledState> {
    /// The log size below which it is never compacted while running (8 MiB unless a test asks for less).
    private let compactionFloor: Int

    private let directory: StateDirectory
    /// The files' name: `<name>.json` and `<name>.<generation>.log`.
    private let name: String
    private let fsyncEachChange: Bool
    private var generation: Int
    private var descriptor: Int32 = -1
    private var logBytes = 0
    private var snapshotBytes = 0

    /// A journal of the files named `name` in `directory`; ``load()`` reads it.
    init(directory: StateDirectory, name: String, fsyncEachChange: Bool, compactionFloor: Int = 8 << 20) {
        self.directory = directory
        self.name = name
        self.fsyncEachChange = fsyncEachChange
        self.compactionFloor = compactionFloor
        self.generation = 0
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    /// The saved state with every logged change applied; leaves an empty log open for appends.
    func load() throws -> State {
        var state = State()
        let stateURL = directory.snapshotURL(name)
        if FileManager.default.fileExists(atPath: stateURL.path) {
            let data = try Data(contentsOf: stateURL)
            state = try JSONDecoder().decode(State.self, from: data)
            snapshotBytes = data.count
        }
        generation = state.logGeneration
        let logURL = directory.logURL(name, generation: generation)
        if FileManager.default.fileExists(atPath: logURL.path) {
            try Self.replay(Data(contentsOf: logURL), into: &state, path: logURL.path)
        }
        try compact(&state)
        return state
    }

    /// Applies every complete line of `log` to `state`.
    static func replay(_ log: Data, into state: inout State, path: String) throws {
        let decoder = JSONDecoder()
        var lines = log.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        // The last piece is empty when the log ends with a newline, and a line cut short when the process died
        // during its write: neither holds a change.
        lines.removeLast()
        for (number, line) in lines.enumerated() where !line.isEmpty {
            let change: State.Change
            do {
                change = try decoder.decode(State.Change.self, from: Data(line))
            } catch {
                throw StateDirectoryError(path: path, reason: "has an unreadable line \(number + 1): \(error)")
            }
            do {
                try state.apply(change)
            } catch {
                throw StateDirectoryError(path: path, reason: "line \(number + 1) does not apply: \(error)")
            }
        }
    }

    /// The generation of the log being appended to.
    var currentGeneration: Int { generation }

    /// Appends what changed in `state` since the last call (nothing when nothing did), compacting when the log has
    /// grown past the snapshot.
    func record(_ state: inout State) throws {
        guard let change = state.takeChange() else { return }
        var line = try JSONEncoder().encode(change)
        line.append(UInt8(ascii: "\n"))
        try append(line)
        if logBytes > compactionFloor && logBytes > snapshotBytes {
            try compact(&state)
        }
    }

    /// Writes `state` as the snapshot of the next generation, deletes the old log and opens the new one.
    func compact(_ state: inout State) throws {
        let old = directory.logURL(name, generation: generation)
        if descriptor >= 0 {
            close(descriptor)
            descriptor = -1
        }
        generation += 1
        state.version = State.formatVersion
        state.logGeneration = generation
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = try encoder.encode(state)
        try directory.write(data, to: directory.snapshotURL(name), durably: true)
        snapshotBytes = data.count
        try? FileManager.default.removeItem(at: old)
        try openLog(directory.logURL(name, generation: generation))
    }

    private func openLog(_ url: URL) throws {
        let fd = open(url.path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw StateDirectoryError(path: url.path, reason: "cannot be opened: \(String(cString: strerror(errno)))")
        }
        descriptor = fd
        logBytes = 0
    }

    private func append(_ line: Data) throws {
        let path = directory.logURL(name, generation: generation).path
        guard POSIXFile.writeAll(line, to: descriptor) else {
            throw StateDirectoryError(path: path, reason: "cannot be appended to: \(String(cString: strerror(errno)))")
        }
        if fsyncEachChange, fdatasync(descriptor) != 0 {
            throw StateDirectoryError(path: path, reason: "cannot be flushed: \(String(cString: strerror(errno)))")
        }
        logBytes += line.count
    }
}

extension StateJournal where State == SandboxSnapshot {
    /// The journal of the store's purchases: `state.json` and `state.<generation>.log`.
    convenience init(directory: StateDirectory, fsyncEachChange: Bool, compactionFloor: Int = 8 << 20) {
        self.init(
            directory: directory, name: "state", fsyncEachChange: fsyncEachChange, compactionFloor: compactionFloor)
    }
}

/// A log line that cannot be applied to the state it follows.
enum StateJournalError: Error, CustomStringConvertible {
    case inconsistent(String)

    var description: String {
        switch self {
        case .inconsistent(let reason): "inconsistent state log: \(reason)"
        }
    }
}

/// Whole writes to a file descriptor.
enum POSIXFile {
    /// Writes all of `data` to `descriptor` (one `write(2)` unless the kernel takes less); `false` on an error, with
    /// `errno` set.
    static func writeAll(_ data: Data, to descriptor: Int32) -> Bool {
        data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) -> Bool in
            guard let base = buffer.baseAddress else { return true }
            var offset = 0
            while offset < buffer.count {
                let written = write(descriptor, base + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                offset += written
            }
            return true
        }
    }
}
