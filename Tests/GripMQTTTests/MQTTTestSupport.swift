import Foundation
import GripTestSupport
import Testing

/// A child process started with `posix_spawn`: nothing of the test process but the output file is inherited (the
/// pattern of `PostgresCluster`: a pipe or socket held open by a child would keep another test's reader waiting),
/// and the signal mask and dispositions are reset, since the test runner's threads block signals that
/// `mosquitto_sub -W` (SIGALRM) and griptrackd (SIGTERM) rely on.
final class Child: @unchecked Sendable {
    // SAFETY: `exited` is only touched under `lock`.
    let pid: pid_t
    private let lock = NSLock()
    private var exited = false

    init(_ arguments: [String], output: String) throws {
        let closeAndExec = "export GRIPTRACK_TEST_SERVER=mqtt; "
            + "for fd in $(ls /proc/$$/fd); do [ \"$fd\" -gt 2 ] && eval \"exec $fd>&-\"; done; exec \"$@\""
        let command = ["/bin/bash", "-c", closeAndExec, "bash"] + arguments
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGTERM, SIGINT, SIGALRM, SIGPIPE, SIGCHLD, SIGHUP] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv: [UnsafeMutablePointer<CChar>?] = command.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, command[0], &actions, &attributes, argv, environ)
        guard spawned == 0 else {
            throw MosquittoBroker.Failure(description: "cannot start \(arguments[0]): \(String(cString: strerror(spawned)))")
        }
        self.pid = pid
    }

    deinit { terminate() }

    var isRunning: Bool {
        lock.lock()
        defer { lock.unlock() }
        guard !exited else { return false }
        var status: Int32 = 0
        if waitpid(pid, &status, WNOHANG) == pid { exited = true }
        return !exited
    }

    func wait() {
        lock.lock()
        defer { lock.unlock() }
        guard !exited else { return }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        exited = true
    }

    /// SIGTERM, then waits (SIGKILL after 10 s).
    func terminate() {
        guard isRunning else { return }
        kill(pid, SIGTERM)
        for _ in 0..<1000 where isRunning { usleep(10_000) }
        if isRunning { kill(pid, SIGKILL) }
        wait()
    }

    /// SIGKILL, then waits.
    func kill9() {
        guard isRunning else { return }
        kill(pid, SIGKILL)
        wait()
    }
}

enum Spawn {
    static func start(_ arguments: [String], output: String) throws -> Child {
        try Child(arguments, output: output)
    }

    /// Runs a program to its end; its output.
    @discardableResult
    static func run(_ arguments: [String]) throws -> String {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("gt-mqtt-run-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: output) }
        let child = try start(arguments, output: output)
        child.wait()
        return (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
    }
}

/// Waits (in 50 ms steps) until `condition` holds or `seconds` pass.
/// - Returns: whether it held.
func waitUntil(seconds: Double, _ condition: () throws -> Bool) async rethrows -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if try condition() { return true }
        try? await Task.sleep(for: .milliseconds(50))
    }
    return try condition()
}

/// A throwaway mosquitto broker on a free loopback port (Debian's `mosquitto`; scripts/setup installs it).
final class MosquittoBroker: @unchecked Sendable {
    // SAFETY: used by one test at a time (the suite is serialized); `process` changes only in start/stop.
    static let binary = "/usr/sbin/mosquitto"
    static var installed: Bool { FileManager.default.isExecutableFile(atPath: binary) }

    let directory: String
    let port: Int
    private var process: Child?

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// The broker's own certificate when it listens with TLS only (mqtts).
    let certificate: SelfSignedCertificate?

    /// - Parameter tls: listen with TLS only, with a fresh self-signed certificate for localhost.
    init(tls: Bool = false) throws {
        guard Self.installed else { throw Failure(description: "mosquitto is not installed; run scripts/setup") }
        directory = "/tmp/gt-mqtt-" + String(UUID().uuidString.prefix(8)).lowercased()
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        port = try Self.freePort()
        certificate = tls ? try SelfSignedCertificate(in: directory, name: "broker") : nil
        // mosquitto drops root for user mosquitto, which must be able to read the key.
        if let certificate { chmod(certificate.keyPath, 0o644) }
        let tlsLines = certificate.map { "\ncertfile \($0.certificatePath)\nkeyfile \($0.keyPath)" } ?? ""
        let config = """
            listener \(port) 127.0.0.1\(tlsLines)
            allow_anonymous true
            persistence false
            log_dest stdout
            """
        try config.write(toFile: directory + "/mosquitto.conf", atomically: true, encoding: .utf8)
        try start()
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    func start() throws {
        process = try Spawn.start([Self.binary, "-c", directory + "/mosquitto.conf"], output: directory + "/broker.log")
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if Self.accepts(port: port) { return }
            usleep(20_000)
        }
        throw Failure(description: "mosquitto did not listen on \(port): \(log)")
    }

    func stop() {
        process?.terminate()
        process = nil
    }

    var log: String { (try? String(contentsOfFile: directory + "/broker.log", encoding: .utf8)) ?? "" }

    private static func freePort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(descriptor, pointer, length) == 0 && getsockname(descriptor, pointer, &length) == 0
            }
        }
        guard bound else { throw Failure(description: "no free loopback port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    static func accepts(port: Int) -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }
}

/// One message as `mosquitto_sub` printed it.
struct Received: Sendable {
    var time: Double
    var retained: Bool
    var topic: String
    var payload: String
}

/// `mosquitto_sub` (Debian's mosquitto-clients) writing every message on a filter to a file, line-buffered.
final class Subscriber: @unchecked Sendable {
    // SAFETY: `process` is set in init and only read afterwards.
    private let process: Child
    let output: String

    init(port: Int, topic: String = "#", directory: String) throws {
        output = directory + "/sub-\(UUID().uuidString.prefix(6)).log"
        process = try Spawn.start(
            ["/usr/bin/stdbuf", "-oL", "/usr/bin/mosquitto_sub", "-h", "127.0.0.1", "-p", "\(port)", "-q", "1",
             "-t", topic, "-F", "%U %r %t %p"],
            output: output)
    }

    deinit { stop() }

    func stop() { process.terminate() }

    var messages: [Received] {
        let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            let parts = line.split(separator: " ", maxSplits: 3, omittingEmptySubsequences: false)
            guard parts.count >= 3, let time = Double(parts[0]) else { return nil }
            return Received(
                time: time, retained: parts[1] == "1", topic: String(parts[2]),
                payload: parts.count > 3 ? String(parts[3]) : "")
        }
    }

    func messages(on topic: String) -> [Received] { messages.filter { $0.topic == topic } }

    /// The retained messages under `filter` now: a fresh `mosquitto_sub --retained-only` that exits after them.
    /// - Parameter caFile: for a TLS broker: connect as `localhost` and verify it against this certificate.
    static func retained(port: Int, filter: String, caFile: String? = nil) throws -> [Received] {
        let tls = caFile.map { ["-h", "localhost", "--cafile", $0] } ?? ["-h", "127.0.0.1"]
        let text = try Spawn.run(
            ["/usr/bin/mosquitto_sub"] + tls + ["-p", "\(port)", "-t", filter, "--retained-only", "-W", "2",
             "-F", "%U %r %t %p"])
        return text.split(separator: "\n").compactMap { line in
            let parts = line.split(separator: " ", maxSplits: 3, omittingEmptySubsequences: false)
            guard parts.count >= 3, let time = Double(parts[0]) else { return nil }
            return Received(
                time: time, retained: parts[1] == "1", topic: String(parts[2]),
                payload: parts.count > 3 ? String(parts[3]) : "")
        }
    }

    static func publish(port: Int, topic: String, payload: String) throws {
        try Spawn.run(["/usr/bin/mosquitto_pub", "-h", "127.0.0.1", "-p", "\(port)", "-q", "1", "-t", topic, "-m", payload])
    }
}

/// griptrackd replaying a capture, with `[mqtt]` pointing at a broker.
final class ReplayingDaemon: @unchecked Sendable {
    // SAFETY: `process` is set in init and only read afterwards.
    private let process: Child
    let directory: String
    let socketPath: String
    var logPath: String { directory + "/griptrackd.log" }

    static func executable(named name: String = "griptrackd") throws -> String {
        var directories = [URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()]
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            directories.append(bundle.bundleURL.deletingLastPathComponent())
        }
        directories.append(CaptureFixtures.repositoryRoot.appendingPathComponent(".build/debug"))
        for directory in directories {
            let candidate = directory.appendingPathComponent(name).path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        throw MosquittoBroker.Failure(description: "\(name) not found in \(directories.map(\.path)); run swift build")
    }

    /// - Parameters:
    ///   - mqtt: the `[mqtt]` lines (without the header).
    init(capture: String, speed: Double, mqtt: String, directory: String) throws {
        self.directory = directory
        socketPath = directory + "/griptrackd.sock"
        let config = """
            [sync]
            device_name = "test-board"

            [mqtt]
            \(mqtt)
            """
        try config.write(toFile: directory + "/griptrack.toml", atomically: true, encoding: .utf8)
        process = try Spawn.start(
            [try Self.executable(), "--config", directory + "/griptrack.toml", "--socket", socketPath, "--db",
             directory + "/griptrack.db", "--replay", CaptureFixtures.url(capture).path, "--speed", "\(speed)",
             "--wait-for-watcher"],
            output: directory + "/griptrackd.log")
    }

    deinit { stop() }

    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }
    var isRunning: Bool { process.isRunning }

    /// CPU time used so far (user + system), in clock ticks (1/100 s), from /proc.
    var cpuTicks: Int {
        let stat = (try? String(contentsOfFile: "/proc/\(process.pid)/stat", encoding: .utf8)) ?? ""
        // Fields after the command name, which is in parentheses and may hold spaces.
        guard let close = stat.lastIndex(of: ")") else { return 0 }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Int(fields[11]), let system = Int(fields[12]) else { return 0 }
        return user + system
    }

    /// SIGTERM (graceful) and wait.
    func stop() { process.terminate() }

    /// SIGKILL: a crash, as far as the broker can tell.
    func kill() { process.kill9() }
}
