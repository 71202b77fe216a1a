import Foundation
import Glibc
import GripDaemon
import GripEntitlements
import GripStore
import GripTestSupport
import Logging

/// A daemon running in-process on a socket in a fresh temporary directory.
final class DaemonHarness: Sendable {
    let directory: String
    let socketPath: String
    /// The daemon's database (in `directory` unless a test passes another).
    let databasePath: String
    let daemon: Daemon
    private let task: Task<Void, any Error>

    /// Starts a daemon replaying `capture` (held until the first WATCH) at `speed`.
    /// - Parameters:
    ///   - directory: where the socket and (by default) the database go; a fresh temporary one by default.
    ///   - keepsStreamOpen: after the capture, keep the stream open until shutdown (explicit recordings last
    ///     until STOP).
    init(capture: String? = "progressor-repeaters.btsnoop", speed: Double = 100, backlogLimit: Int = 1 << 20,
         sendBufferBytes: Int? = nil, environment: [String: String] = [:], directory: String? = nil,
         databasePath: String? = nil, access: AccessContext = AccessContext(), keepsStreamOpen: Bool = false,
         configure: (inout DaemonConfiguration) -> Void = { _ in }) throws {
        if let directory {
            self.directory = directory
        } else {
            self.directory = try Self.makeTemporaryDirectory()
        }
        socketPath = self.directory + "/griptrack.sock"
        self.databasePath = databasePath ?? self.directory + "/griptrack.db"
        var configuration = DaemonConfiguration(
            socketPath: socketPath, replayPath: capture.map { CaptureFixtures.url($0).path }, replaySpeed: speed,
            replayWaitsForWatcher: true, clientBacklogLimit: backlogLimit, databasePath: self.databasePath,
            access: access)
        configuration.replayKeepsStreamOpen = keepsStreamOpen
        configuration.clientSendBufferBytes = sendBufferBytes
        configure(&configuration)
        let daemon = try Daemon(
            configuration: configuration, environment: environment,
            logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        self.daemon = daemon
        task = Task { try await daemon.run() }
    }

    /// Waits until the daemon greets clients (tests then block in recv without starving its startup).
    func started() async -> Self {
        await daemon.waitUntilServing()
        return self
    }

    /// Shuts the daemon down gracefully and waits for it.
    func stop() async throws {
        await daemon.shutdown()
        try await task.value
    }

    func connect() throws -> TestClient { try TestClient(path: socketPath) }

    /// A client that has read the greeting line.
    func greetedClient() async throws -> TestClient {
        let client = try connect()
        _ = try await client.readMessage()
        return client
    }

    /// A greeted client that has sent WATCH (its reply not yet read); `pace` nil leaves the default.
    func watcher(pace: String? = nil) async throws -> TestClient {
        let client = try await greetedClient()
        client.send(pace.map { "{\"class\":\"WATCH\",\"pace\":\"\($0)\"}\n" } ?? "{\"class\":\"WATCH\"}\n")
        return client
    }

    /// A new empty directory under /tmp.
    static func makeTemporaryDirectory() throws -> String {
        var template = Array("/tmp/gtd-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw HarnessError("mkdtemp failed") }
        return String(cString: made)
    }

    deinit { try? FileManager.default.removeItem(atPath: directory) }
}

struct HarnessError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// A protocol client with a 10 s receive timeout (a broken daemon fails the test instead of hanging it).
// SAFETY: @unchecked Sendable because each client belongs to one test, which uses it sequentially (every read
// awaits its thread before the next call), so no two threads touch `buffer` at once.
final class TestClient: @unchecked Sendable {
    let descriptor: Int32
    private var buffer: [UInt8] = []

    init(path: String) throws {
        descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: Array(path.utf8) + [0])
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard result == 0 else { throw HarnessError("connect \(path): errno \(errno)") }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(descriptor) }

    func send(_ text: String) {
        let bytes = Array(text.utf8)
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count <= 0 { return }
            sent += count
        }
    }

    /// The next line as raw text, or nil at end of stream (or on timeout).
    func readLine() async -> String? {
        await offPool { self.blockingReadLine() }
    }

    private func blockingReadLine() -> String? {
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return line
            }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let count = recv(descriptor, &chunk, chunk.count, 0)
            if count <= 0 { return nil }
            buffer.append(contentsOf: chunk[..<count])
        }
    }

    /// The next message as a JSON object, or nil at end of stream.
    func readMessage() async throws -> [String: Any]? {
        guard let line = await readLine() else { return nil }
        guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
            throw HarnessError("not a JSON object: \(line)")
        }
        return object
    }

    /// Reads until a message of `messageClass` (optionally with `event`), collecting everything read on the way.
    func read(until messageClass: String, event: String? = nil) async throws -> (match: [String: Any]?, seen: [[String: Any]]) {
        var seen: [[String: Any]] = []
        while let message = try await readMessage() {
            seen.append(message)
            if message["class"] as? String == messageClass, event == nil || message["event"] as? String == event {
                return (message, seen)
            }
        }
        return (nil, seen)
    }
}
