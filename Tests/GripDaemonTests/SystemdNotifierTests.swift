import Foundation
import Glibc
import GRDB
import GripDaemon
@testable import GripStore
import Logging
import Synchronization
import Testing

@Suite("sd_notify")
struct SystemdNotifierTests {
    @Test("READY=1 arrives on NOTIFY_SOCKET once the socket listens, STOPPING=1 on shutdown")
    func readyAndStopping() async throws {
        let notify = try NotifySocket()
        let notifyPath = notify.path, receiver = notify.descriptor

        let harness = try await DaemonHarness(capture: nil, environment: ["NOTIFY_SOCKET": notifyPath]).started()
        let ready = try #require(await Self.receive(receiver))
        #expect(ready.split(separator: "\n").contains("READY=1"))
        #expect(ready.contains("STATUS=Listening on \(harness.socketPath)"))
        // READY=1 means clients can connect now.
        let client = try harness.connect()
        #expect(try await client.readMessage()?["class"] as? String == "VERSION")
        try await harness.stop()
        let stopping = try #require(await Self.receive(receiver))
        #expect(stopping.split(separator: "\n").contains("STOPPING=1"))
    }

    @Test("a start that upgrades an older database asks systemd for more time before it migrates")
    func upgradeExtendsStartTimeout() async throws {
        let notify = try NotifySocket()
        let notifyPath = notify.path, receiver = notify.descriptor
        var template = Array("/tmp/gtu-XXXXXX".utf8CString)
        let directory = String(cString: try #require(mkdtemp(&template)))
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // A file as the release before v5 left it.
        let databasePath = directory + "/griptrack.db"
        try Migrations.migrator.migrate(try DatabaseQueue(path: databasePath), upTo: "v4 sync outbox")

        let harness = try await DaemonHarness(
            capture: nil, environment: ["NOTIFY_SOCKET": notifyPath], databasePath: databasePath
        ).started()
        let first = try #require(await Self.receive(receiver))
        #expect(first.split(separator: "\n").contains("EXTEND_TIMEOUT_USEC=1800000000"))
        #expect(first.contains("STATUS=Upgrading the database at \(databasePath)"))
        let ready = try #require(await Self.receive(receiver))
        #expect(ready.split(separator: "\n").contains("READY=1"))
        try await harness.stop()
    }

    @Test("a thread stuck in one wake-up stops WATCHDOG=1 and says which; pings resume once it waits again")
    func stuckThreadWithholdsWatchdog() async throws {
        let notify = try NotifySocket()
        let notifyPath = notify.path, receiver = notify.descriptor

        let clock = Mutex(Duration.seconds(1_000))
        let liveness = ThreadLiveness(limit: .seconds(20), now: { clock.withLock { $0 } })
        let notifier = SystemdNotifier(
            environment: ["NOTIFY_SOCKET": notifyPath, "WATCHDOG_USEC": "40000"], readyStatus: "test",
            liveness: liveness, logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        let task = Task { try await notifier.run() }
        defer { task.cancel() }
        #expect(await Self.receive(receiver)?.contains("READY=1") == true)
        #expect(await Self.receive(receiver) == "WATCHDOG=1")

        liveness.busy(.recorder)
        liveness.busy(.socket)
        liveness.idle(.socket)  // the socket thread went back to waiting
        clock.withLock { $0 += .seconds(21) }
        var stuck: String?
        for _ in 0..<20 {
            guard let message = await Self.receive(receiver) else { break }
            if message.hasPrefix("STATUS=Stuck") {
                stuck = message
                break
            }
        }
        #expect(stuck == "STATUS=Stuck: the recorder thread has not returned for 21.0 seconds")
        // Stuck: nothing at all for several intervals (no WATCHDOG=1, the status said once).
        try await Task.sleep(for: .milliseconds(150))
        var buffer = [UInt8](repeating: 0, count: 256)
        #expect(recv(receiver, &buffer, buffer.count, Int32(MSG_DONTWAIT)) < 0)

        liveness.idle(.recorder)
        #expect(await Self.receive(receiver) == "WATCHDOG=1")
    }

    /// Polls without blocking the cooperative pool (the notifier needs it to run); gives up after 10 s.
    static func receive(_ descriptor: Int32) async -> String? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        for _ in 0..<1000 {
            let count = recv(descriptor, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            if count > 0 { return String(decoding: buffer[..<count], as: UTF8.self) }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return nil
    }
}

/// A datagram socket standing in for systemd's `$NOTIFY_SOCKET`, in a fresh directory; removed on deinit.
final class NotifySocket {
    let path: String
    let descriptor: Int32
    private let directory: String

    init() throws {
        var template = Array("/tmp/gtn-XXXXXX".utf8CString)
        directory = String(cString: try #require(mkdtemp(&template)))
        path = directory + "/notify"
        descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8) + [0]) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        try #require(bound == 0)
    }

    deinit {
        close(descriptor)
        unlink(path)
        rmdir(directory)
    }
}
