import Foundation
import GripTestSupport
import Testing

/// `griptrack record --direct`: the daemon runs inside the command and drives the fake Progressor over BlueZ.
@Suite("griptrack record --direct", .serialized, .timeLimit(.minutes(4)), .enabled(if: FakeBlueZ.enabled, FakeBlueZ.skipMessage))
struct RecordDirectTests {
    @Test("record --direct connects, starts the device, shows its efforts and saves them when --duration ends")
    func directSaves() async throws {
        let stream = try CaptureNotifications.load("progressor-max-pulls.btsnoop", speed: 20)
        let fake = try FakeBlueZ(parameters: ["known": true], notifications: stream.notifications)
        defer { fake.stop() }
        let sandbox = try CLISandbox()
        defer { sandbox.cleanUp() }
        let result = try await sandbox.runner.run(
            ["record", "--direct", "--device", FakeBlueZ.progressorAddress, "--hand", "left", "--duration", "4",
             "--db", sandbox.database, "--config", sandbox.config],
            environment: ["DBUS_SYSTEM_BUS_ADDRESS": fake.address])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.hasPrefix("Recording #1 (Free: 1 of 5 recordings stored). Ctrl-C stops it.\n"), "\(result)")
        #expect(result.stdout.contains("\neffort 1: peak "), "\(result)")
        #expect(result.stdout.contains("Saved recording #1: "), "\(result)")
        let list = try await sandbox.run("list")
        #expect(list.status == 0)
        #expect(list.stdout.contains("\n     1  "), "\(list)")
    }
}
