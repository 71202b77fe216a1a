import Foundation
import Glibc
import GripTestSupport
import Testing

/// griptrackd's own handling of `systemctl stop` (SIGTERM), as a separate process.
@Suite("griptrackd and SIGTERM", .timeLimit(.minutes(2)))
struct DaemonSignalTests {
    /// With swift-service-lifecycle's signal handling, SIGTERM was only caught once the service group ran: one in the
    /// ~30 ms between binding the socket and that moment killed the daemon outright (7–9 of these 84 runs, every
    /// time), and one after the signal was set to ignored but before its Dispatch source registered would have been
    /// lost. Each run here sends it at a different moment of start-up: before the handler exists the default action
    /// ends the process; from the socket's existence on it shuts down gracefully and exits 0; it never keeps running.
    @Test("SIGTERM at any moment of start-up ends griptrackd within 10 s; once serving, gracefully with status 0")
    func sigtermDuringStartUp() async throws {
        let runner = try CLIRunner()
        defer { runner.cleanUp() }
        let daemon = runner.executable.deletingLastPathComponent().appendingPathComponent("griptrackd")
        let capture = CaptureFixtures.url("progressor-repeaters.btsnoop").path
        for delayMillis in Array(0...80) + [100, 200, 400] {
            let socket = runner.home.appendingPathComponent("d\(delayMillis).sock").path
            let process = Process()
            process.executableURL = daemon
            process.arguments = [
                "--replay", capture, "--wait-for-watcher", "--socket", socket,
                "--db", runner.home.appendingPathComponent("d\(delayMillis).sqlite").path,
            ]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            usleep(UInt32(delayMillis * 1000))
            let wasServing = FileManager.default.fileExists(atPath: socket)
            kill(process.processIdentifier, SIGTERM)
            var waitedMillis = 0
            while process.isRunning && waitedMillis < 10_000 {
                usleep(10_000)
                waitedMillis += 10
            }
            if process.isRunning {
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
                Issue.record("SIGTERM \(delayMillis) ms after start was lost: griptrackd still ran 10 s later")
                continue
            }
            if wasServing {
                let ended = "\(process.terminationReason) \(process.terminationStatus)"
                #expect(
                    process.terminationReason == .exit && process.terminationStatus == 0,
                    "SIGTERM \(delayMillis) ms after start, socket up: \(ended)")
            }
        }
    }
}
