import Testing

@testable import GripBlueZ
import GripTestSupport

@Suite("Adapter checks and discovery", .serialized, .timeLimit(.minutes(1)), .enabled(if: FakeBlueZ.enabled, FakeBlueZ.skipMessage))
struct DiscoveryTests {
    @Test("discovery finds the Progressor by name prefix, not the decoy, and stops scanning")
    func byNamePrefix() async throws {
        let fake = try FakeBlueZ()
        defer { fake.stop() }
        let client = try await BlueZClient.connect(busAddress: fake.address)
        defer { client.close() }
        #expect(await client.devices().isEmpty)

        let device = try await client.discover(DeviceCriteria(namePrefix: "Progressor"), timeout: .seconds(5))
        #expect(device.address == FakeBlueZ.progressorAddress)
        #expect(device.path == FakeBlueZ.progressorPath)
        #expect(device.rssi == -55)
        #expect(try await client.adapter().discovering == false)
    }

    @Test("discovery finds the Progressor by advertised service UUID, in any case")
    func byServiceUUID() async throws {
        let fake = try FakeBlueZ()
        defer { fake.stop() }
        let client = try await BlueZClient.connect(busAddress: fake.address)
        defer { client.close() }

        let device = try await client.discover(DeviceCriteria(serviceUUID: FakeBlueZ.progressorService.uppercased()),
                                               timeout: .seconds(5))
        #expect(device.name == "Progressor_1234")
        #expect(device.serviceUUIDs == [FakeBlueZ.progressorService])
    }

    @Test("criteria are checked on every reported device: the decoy is found by its own name only")
    func criteriaAreChecked() async throws {
        let fake = try FakeBlueZ()
        defer { fake.stop() }
        let client = try await BlueZClient.connect(busAddress: fake.address)
        defer { client.close() }

        let decoy = try await client.discover(DeviceCriteria(namePrefix: "Decoy"), timeout: .seconds(5))
        #expect(decoy.address == "C0:FF:EE:00:00:01")
        await #expect(throws: GripBlueZError.deviceNotFound(criteria: "name prefix \"Decoy\", service \(FakeBlueZ.progressorService)", seconds: 0.5)) {
            try await client.discover(DeviceCriteria(namePrefix: "Decoy", serviceUUID: FakeBlueZ.progressorService),
                                      timeout: .milliseconds(500))
        }
        #expect(try await client.adapter().discovering == false)
    }

    @Test("an unpowered adapter gives an error that says how to turn it on")
    func adapterOff() async throws {
        let fake = try FakeBlueZ(parameters: ["powered": false, "known": true])
        defer { fake.stop() }
        let client = try await BlueZClient.connect(busAddress: fake.address)
        defer { client.close() }

        await #expect(throws: GripBlueZError.adapterPoweredOff(adapter: "hci0")) { try await client.adapter() }
        await #expect(throws: GripBlueZError.adapterPoweredOff(adapter: "hci0")) {
            try await client.discover(DeviceCriteria(namePrefix: "Progressor"))
        }
        let connection = DeviceConnection(
            client: client, address: FakeBlueZ.progressorAddress,
            configuration: .init(notifyCharacteristicUUID: FakeBlueZ.progressorData), onNotification: { _, _ in })
        await #expect(throws: GripBlueZError.adapterPoweredOff(adapter: "hci0")) { try await connection.run() }
        #expect(GripBlueZError.adapterPoweredOff(adapter: "hci0").description
            == "Bluetooth adapter hci0 is powered off. Turn it on with `bluetoothctl power on` "
            + "(and `rfkill unblock bluetooth` if it is blocked).")
    }

    @Test("a missing adapter and a stopped bluetoothd are reported as such")
    func noAdapterNoDaemon() async throws {
        let fake = try FakeBlueZ()
        defer { fake.stop() }
        let client = try await BlueZClient.connect(busAddress: fake.address)
        defer { client.close() }

        await #expect(throws: GripBlueZError.noAdapter(requested: "hci7")) { try await client.adapter("hci7") }
        try fake.kill()
        // The cache empties when org.bluez loses its owner.
        var error: GripBlueZError?
        for _ in 0..<200 {
            do { _ = try await client.adapter() } catch let caught { error = caught; break }
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(error == .bluetoothdNotRunning)
        #expect(error?.description.contains("sudo systemctl start bluetooth") == true)
    }
}
