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

/// `record --direct` where no device can be reached: it says why and gives up instead of searching for ever.
@Suite("griptrack record --direct without a device", .timeLimit(.minutes(2)))
struct RecordDirectUnreachableTests {
    @Test("no system bus: exit 4 after --connect-timeout with the radio's own reason, and nothing stored")
    func noBusGivesUp() async throws {
        let sandbox = try CLISandbox()
        defer { sandbox.cleanUp() }
        let result = try await sandbox.runner.run(
            ["record", "--direct", "--connect-timeout", "2", "--db", sandbox.database, "--config", sandbox.config],
            environment: ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=\(sandbox.directory.path)/no-bus"])
        #expect(result.status == 4, "\(result)")
        #expect(result.stderr.hasPrefix("griptrack: no sample from the device in 2 s: "), "\(result)")
        #expect(result.stderr.contains("bus"), "the reason names the missing bus: \(result)")
        #expect(result.stderr.contains(" Nothing was stored; --connect-timeout waits longer.\n"), "\(result)")
        struct Status: Decodable { var stored_recordings: Int }
        let plan = try await sandbox.run("pro", "status", "--json")
        #expect(try JSONDecoder().decode(Status.self, from: Data(plan.stdout.utf8)).stored_recordings == 0, "\(plan)")
    }

    @Test("--device is checked as every door checks an address")
    func deviceIsChecked() async throws {
        let runner = try CLIRunner()
        defer { runner.cleanUp() }
        let result = try await runner.run(["record", "--direct", "--device", "F0:0D:CA:FE:12"])
        #expect(result.status == 2, "\(result)")
        #expect(result.stderr.contains(
            "--device takes a Bluetooth address such as F0:0D:CA:FE:12:34 (six hex pairs separated by colons; "
                + "`griptrack devices --scan 5` lists them), got \"F0:0D:CA:FE:12\"."), "\(result)")
    }
}
