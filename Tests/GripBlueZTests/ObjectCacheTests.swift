import Foundation
import Testing

@testable import GripBlueZ
import GripTestSupport

@Suite("ObjectCache mirrors BlueZ's objects", .serialized, .timeLimit(.minutes(1)), .enabled(if: FakeBlueZ.enabled, FakeBlueZ.skipMessage))
struct ObjectCacheTests {
    @Test("the snapshot holds the adapter and the devices BlueZ already knows")
    func snapshot() async throws {
        let fake = try FakeBlueZ(parameters: ["known": true])
        defer { fake.stop() }
        let client = try await BlueZClient.connect(busAddress: fake.address)
        defer { client.close() }

        let cache = client.cache
        let snapshot = await client.connection.perform { cache.all }
        let objects = try #require(snapshot)
        #expect(objects["/org/bluez/hci0"]?[BlueZ.adapter]?["Powered"] == .boolean(true))
        #expect(objects[FakeBlueZ.progressorPath]?[BlueZ.device]?["Address"] == .string(FakeBlueZ.progressorAddress))
        #expect(objects[FakeBlueZ.progressorPath]?[BlueZ.device]?["UUIDs"] == .strings([FakeBlueZ.progressorService]))
        let devices = await client.devices()
        #expect(devices.map(\.name) == ["Progressor_1234"])
    }

    @Test("signals update the cache before watchers see them")
    func signals() async throws {
        let fake = try FakeBlueZ()
        defer { fake.stop() }
        let client = try await BlueZClient.connect(busAddress: fake.address)
        defer { client.close() }
        let cache = client.cache
        let seen = EventRecorder<String>()
        _ = await client.connection.perform {
            cache.addWatcher { event in
                switch event {
                case .interfacesAdded(let path, let interfaces):
                    seen.record("added \(path) \(interfaces) present=\(cache.interfaces(at: path) != nil)")
                case .interfacesRemoved(let path, let interfaces):
                    seen.record("removed \(path) \(interfaces) present=\(cache.interfaces(at: path) != nil)")
                case .propertiesChanged(let path, let interface, let changed, _):
                    let now = changed.keys.sorted().map { "\($0)=\(cache.property(path, interface, $0).map { "\($0)" } ?? "nil")" }
                    seen.record("changed \(path) \(now.joined(separator: ","))")
                default:
                    break
                }
            }
        }

        try await fake.mock("AddPeripheral", .objectPath("/org/bluez/hci0"), .string("AA:BB:CC:DD:EE:01"),
                            .string("Thermo"), .strings([]), .int16(-40), .boolean(true))
        try await fake.mock("SetAdapterPowered", .objectPath("/org/bluez/hci0"), .boolean(false))
        try await client.connection.call("org.bluez", "/org/bluez/hci0", BlueZ.adapter, "RemoveDevice",
                                         [.objectPath("/org/bluez/hci0/dev_AA_BB_CC_DD_EE_01")])

        let expected = [
            "added /org/bluez/hci0/dev_AA_BB_CC_DD_EE_01 [\"org.bluez.Device1\"] present=true",
            "changed /org/bluez/hci0 Powered=boolean(false)",
            "removed /org/bluez/hci0/dev_AA_BB_CC_DD_EE_01 [\"org.bluez.Device1\"] present=false",
        ]
        await seen.waitUntil { $0.count >= expected.count }
        #expect(seen.all == expected)
        await #expect(throws: GripBlueZError.adapterPoweredOff(adapter: "hci0")) { try await client.adapter() }
    }

    @Test("a bluetoothd restart empties the cache, then rebuilds it from the new instance")
    func restart() async throws {
        let fake = try FakeBlueZ(parameters: ["known": true])
        defer { fake.stop() }
        let client = try await BlueZClient.connect(busAddress: fake.address)
        defer { client.close() }
        let cache = client.cache
        let seen = EventRecorder<String>()
        _ = await client.connection.perform {
            cache.addWatcher { event in
                switch event {
                case .bluezLost: seen.record("lost objects=\(cache.all.count)")
                case .bluezAppeared: seen.record("appeared objects=\(cache.all.count)")
                default: break
                }
            }
        }

        try fake.kill()
        #expect(await seen.waitUntil { $0 == ["lost objects=0"] })
        await #expect(throws: GripBlueZError.bluetoothdNotRunning) { try await client.adapter() }

        try fake.relaunch(parameters: ["known": false, "decoy": false])
        #expect(await seen.waitUntil { $0 == ["lost objects=0", "appeared objects=1"] })
        #expect(try await client.adapter().name == "hci0")
    }
}
