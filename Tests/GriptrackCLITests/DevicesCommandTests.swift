import Foundation
import GripTestSupport
import Testing

/// `griptrack devices` against the fake BlueZ on a private bus (DBUS_SYSTEM_BUS_ADDRESS).
@Suite("griptrack devices", .serialized, .timeLimit(.minutes(2)), .enabled(if: FakeBlueZ.enabled, FakeBlueZ.skipMessage))
struct DevicesCommandTests {
    static func run(_ arguments: [String], bus: String) async throws -> CLIRunner.Result {
        let runner = try CLIRunner()
        defer { runner.cleanUp() }
        return try await runner.run(["devices"] + arguments, environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus])
    }

    @Test("--scan lists the Progressor as supported with its RSSI, and the decoy as not supported")
    func scanTable() async throws {
        let fake = try FakeBlueZ(parameters: ["known": true])
        defer { fake.stop() }
        let result = try await Self.run(["--scan", "0.5"], bus: fake.address)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout == """
            ADDRESS            RSSI      NAME             SUPPORTED
            F0:0D:CA:FE:12:34  -55 dBm   Progressor_1234  Tindeq Progressor (progressor, notify): Hangman (kesyog/hangman, default name)
            C0:FF:EE:00:00:01  -70 dBm   Decoy Scale      no

            """)
    }

    @Test("--json gives address, name, RSSI, supported and the profile per device")
    func scanJSON() async throws {
        let fake = try FakeBlueZ(parameters: ["known": true])
        defer { fake.stop() }
        let result = try await Self.run(["--scan", "0.5", "--json"], bus: fake.address)
        #expect(result.status == 0, "\(result)")
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
        let progressor = try #require(rows.first { $0["address"] as? String == FakeBlueZ.progressorAddress })
        #expect(progressor["name"] as? String == "Progressor_1234")
        #expect(progressor["rssi"] as? Int == -55)
        #expect(progressor["supported"] as? Bool == true)
        #expect(progressor["profile"] as? String == "progressor")
        // Progressor_1234 is the Hangman firmware's default name (a Tindeq's has other digits).
        #expect(progressor["variant"] as? String == "Hangman (kesyog/hangman, default name)")
        let decoy = try #require(rows.first { $0["name"] as? String == "Decoy Scale" })
        #expect(decoy["supported"] as? Bool == false)
        #expect(decoy["profile"] == nil)
        #expect(rows.count == 2)
    }

    @Test("without --scan it lists the devices bluetoothd already knows, without RSSI")
    func known() async throws {
        let fake = try FakeBlueZ(parameters: ["known": true])
        defer { fake.stop() }
        let result = try await Self.run([], bus: fake.address)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout == """
            ADDRESS            RSSI      NAME             SUPPORTED
            F0:0D:CA:FE:12:34  —         Progressor_1234  Tindeq Progressor (progressor, notify): Hangman (kesyog/hangman, default name)
            RSSI is only known while scanning: add --scan 5.

            """)
    }

    @Test("each device of the table is named with its profile and transport, and the config line to use it is shown")
    func otherDevices() async throws {
        let fake = try FakeBlueZ(parameters: ["known": true, "decoy": false, "progressor": false])
        defer { fake.stop() }
        for (address, name, kind) in [("D0:0D:00:00:00:01", "Force Board 12", "forceboard"), ("D0:0D:00:00:00:02", "ENTRALPI", "entralpi"),
                                      ("D0:0D:00:00:00:03", "BodyScale", "weightscale")] {
            try await fake.mock("AddDevice", .objectPath("/org/bluez/hci0"), .string(address), .string(name), .string(kind), .boolean(true))
        }
        let result = try await Self.run([], bus: fake.address)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout == """
            ADDRESS            RSSI      NAME            SUPPORTED
            D0:0D:00:00:00:01  —         Force Board 12  PitchSix Force Board (forceboard, notify)
            D0:0D:00:00:00:02  —         ENTRALPI        Entralpi (entralpi, notify)
            D0:0D:00:00:00:03  —         BodyScale       Bluetooth SIG Weight Scale (weightscale, indicate)
            griptrackd drives a Progressor unless told otherwise: to use another device, put its profile under [device] in /etc/griptrack/griptrack.toml, e.g. profile = "entralpi".
            RSSI is only known while scanning: add --scan 5.

            """)
    }

    @Test("a stopped bluetoothd exits 4 and says how to start it")
    func noBluetoothd() async throws {
        let fake = try FakeBlueZ(parameters: ["known": true])
        defer { fake.stop() }
        try fake.kill()
        let result = try await Self.run([], bus: fake.address)
        #expect(result.status == 4)
        #expect(result.stdout == "")
        #expect(result.stderr == "griptrack: bluetoothd is not running (nobody owns org.bluez on the system bus). "
            + "Start it with `sudo systemctl start bluetooth` and check `systemctl status bluetooth`.\n")
    }

    @Test("a powered-off adapter exits 4 and says how to turn it on")
    func poweredOff() async throws {
        let fake = try FakeBlueZ(parameters: ["known": true, "powered": false])
        defer { fake.stop() }
        let result = try await Self.run(["--scan", "1"], bus: fake.address)
        #expect(result.status == 4)
        #expect(result.stderr == "griptrack: Bluetooth adapter hci0 is powered off. Turn it on with "
            + "`bluetoothctl power on` (and `rfkill unblock bluetooth` if it is blocked).\n")
    }
}
