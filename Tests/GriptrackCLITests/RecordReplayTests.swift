import Foundation
import GripDaemon
import GripTestSupport
import Logging
import Testing

/// `griptrack record --replay` and `status` against the real daemon (in-process, or the one the CLI starts).
@Suite("griptrack record and status against griptrackd", .serialized, .timeLimit(.minutes(2)))
struct RecordReplayTests {
    @Test("status reaches a running griptrackd and shows its release, protocol and replay source")
    func statusOfRunningDaemon() async throws {
        var template = Array("/tmp/gt-status-XXXXXX".utf8CString)
        let directory = String(cString: try #require(mkdtemp(&template)))
        defer { rmdir(directory) }
        let socket = directory + "/griptrack.sock"
        let daemon = try Daemon(
            configuration: DaemonConfiguration(
                socketPath: socket, replayPath: CaptureFixtures.url("progressor-repeaters.btsnoop").path,
                replayWaitsForWatcher: true, databasePath: directory + "/griptrack.db"),
            environment: [:], logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        let task = Task { try await daemon.run() }
        await daemon.waitUntilServing()
        let result = try await CLIRunner().run(["status", "--socket", socket])
        await daemon.shutdown()
        try await task.value
        #expect(result.status == 0, "\(result)")
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.first?.hasPrefix("Daemon:    running, griptrackd \(DaemonConfiguration.release) (protocol 1.") == true)
        #expect(lines.first?.hasSuffix(" on \(socket)") == true)
        #expect(lines.dropFirst().first?.hasPrefix("Device:    ") == true)
        #expect(lines.dropFirst().first?.hasSuffix("source replay") == true)
    }

    @Test("record --replay saves the whole capture as one recording and prints its summary")
    func replaySaves() async throws {
        let sandbox = try CLISandbox()
        defer { sandbox.cleanUp() }
        let result = try await sandbox.run("record", "--replay", sandbox.capture("repeaters"), "--speed", "1000")
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.hasPrefix("Recording #1 (Free: 1 of 5 recordings stored). Ctrl-C stops it.\n"), "\(result)")
        #expect(result.stdout.hasSuffix("Saved recording #1: 6 efforts, max 22.4 kg, average 21.3 kg\n"), "\(result)")
        #expect(result.stdout.components(separatedBy: "\neffort ").count == 7)
        let list = try await sandbox.run("list")
        #expect(list.status == 0)
        #expect(list.stdout.contains("\n     1  "))
    }

    @Test("record --replay --no-save stores nothing")
    func replayNoSave() async throws {
        let sandbox = try CLISandbox()
        defer { sandbox.cleanUp() }
        let result = try await sandbox.run("record", "--replay", sandbox.capture("repeaters"), "--speed", "1000", "--no-save")
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.hasSuffix("Not saved (--no-save): 6 efforts, max 22.4 kg, average 21.3 kg\n"), "\(result)")
        let stats = try await sandbox.run("pro", "status")
        #expect(stats.stdout.contains("Free: 0 of 5 recordings stored"), "\(stats)")
    }

    @Test("record --replay with the free plan full exits 3 with the policy's reason")
    func replayRefused() async throws {
        let sandbox = try CLISandbox()
        defer { sandbox.cleanUp() }
        for _ in 0..<5 { try await sandbox.run("replay", sandbox.capture("repeaters"), "--save") }
        let result = try await sandbox.run("record", "--replay", sandbox.capture("repeaters"), "--speed", "1000")
        #expect(result.status == 3)
        #expect(result.stderr == "griptrack: Free plan keeps 5 recordings (5 of 5 used). Delete one with "
            + "`griptrack delete <id>` or upgrade to Pro.\nRun `griptrack record --no-save` for a live-only view.\n")
    }

    @Test("record --replay of a missing capture exits 5")
    func replayMissing() async throws {
        let sandbox = try CLISandbox()
        defer { sandbox.cleanUp() }
        let result = try await sandbox.run("record", "--replay", "/nonexistent.btsnoop")
        #expect(result.status == 5)
        #expect(result.stderr == "griptrack: no capture at /nonexistent.btsnoop. Check the path "
            + "(`griptrack replay FILE` reads the same files).\n")
    }
}

