import ArgumentParser
import Foundation
import GripBlueZ
import GripWire

extension Griptrack {
    /// `griptrack devices`: what BlueZ sees, and which of it griptrack supports.
    struct Devices: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "devices",
            abstract: "List the Bluetooth devices BlueZ knows, marking the supported ones.",
            discussion: """
                Lists every device bluetoothd exports: address, name, signal strength (RSSI, only known while \
                scanning) and whether griptrack supports it (by name, else advertised service): the device's \
                profile, the identifier to put in [device] profile, and how it sends data (notify, indicate); for \
                the Progressor protocol, which device the name shows (a Tindeq, or the Hangman, Crimpdeq, Mito or \
                BigBanger clone under its default name). \
                --scan SECONDS \
                scans first, which also finds devices bluetoothd has not seen yet. Exits 4 when bluetoothd is not \
                running or the adapter is missing or off.
                """
        )

        @Option(help: ArgumentHelp("Scan this many seconds first (wake the device first).", valueName: "seconds"))
        var scan: Double?

        @Option(help: ArgumentHelp("The adapter, e.g. hci1 (default: the first).", valueName: "name"))
        var adapter: String?

        @Flag(help: "Print JSON instead of text.")
        var json = false

        func validate() throws {
            if let scan, !(scan > 0 && scan <= 600) {
                throw ValidationError("--scan takes seconds between 0 and 600, e.g. --scan 5.")
            }
        }

        func run() async throws {
            let devices: [DeviceInfo]
            do {
                let client = try await BlueZClient.connect()
                defer { client.close() }
                _ = try await client.adapter(adapter)
                if let scan {
                    devices = try await client.scan(for: .milliseconds(Int64((scan * 1000).rounded())), adapter: adapter)
                } else {
                    devices = await client.devices()
                }
            } catch {
                throw CLIExit.unavailable.fail(error.description)
            }
            let listed = devices.map(ListedDevice.init)
            if json {
                try printJSON(listed)
            } else {
                print(Self.table(listed, scanned: scan != nil), terminator: "")
            }
        }

        /// The text table, supported devices first.
        static func table(_ devices: [ListedDevice], scanned: Bool) -> String {
            guard !devices.isEmpty else {
                return scanned
                    ? "No devices seen. Wake the device (press its button) and scan longer.\n"
                    : "bluetoothd knows no devices. Wake the device and run `griptrack devices --scan 5`.\n"
            }
            let sorted = devices.filter(\.supported) + devices.filter { !$0.supported }
            let nameWidth = max(4, sorted.map { ($0.name ?? "—").count }.max() ?? 4)
            var text = "ADDRESS            RSSI      " + "NAME".rightPadded(nameWidth) + "  SUPPORTED\n"
            for device in sorted {
                let rssi = device.rssi.map { "\($0) dBm" } ?? "—"
                text += device.address.rightPadded(19) + rssi.rightPadded(10) + (device.name ?? "—").rightPadded(nameWidth)
                    + "  " + (device.profileName.map { "\($0) (\(device.profile ?? ""), \(device.transport ?? ""))" } ?? "no")
                    + (device.variant.map { ": \($0)" } ?? "")
                    + (device.connected ? " connected" : "") + "\n"
            }
            let others = Set(sorted.compactMap(\.profile)).subtracting(["progressor"]).sorted()
            if let first = others.first {
                text += "griptrackd drives a Progressor unless told otherwise: to use another device, put its profile "
                    + "under [device] in /etc/griptrack/griptrack.toml, e.g. profile = \"\(first)\".\n"
            }
            if !scanned && sorted.allSatisfy({ $0.rssi == nil }) {
                text += "RSSI is only known while scanning: add --scan 5.\n"
            }
            return text
        }
    }
}

/// One row of `griptrack devices` (`--json` fields in snake_case).
struct ListedDevice: Encodable, Equatable {
    var address: String
    var name: String?
    var rssi: Int?
    var supported: Bool
    /// The profile identifier (`progressor`) and name, when supported.
    var profile: String?
    var profileName: String?
    /// How the profile's device sends data: `notify`, `indicate` or `advertisement`.
    var transport: String?
    /// Which Progressor-protocol device the name shows (a Tindeq or a clone: `ProgressorClone`); nil for others.
    var variant: String?
    var connected: Bool
    var serviceUuids: [String]

    init(_ device: DeviceInfo) {
        address = device.address
        name = device.name
        rssi = device.rssi
        let profile = DeviceProfiles.matching(name: device.name, serviceUUIDs: device.serviceUUIDs)
        supported = profile != nil
        self.profile = profile?.identifier
        profileName = profile?.name
        transport = profile?.transport.rawValue
        variant = profile?.identifier == TindeqProgressor().identifier
            ? ProgressorClone.identify(name: device.name)?.name : nil
        connected = device.connected
        serviceUuids = device.serviceUUIDs
    }
}
