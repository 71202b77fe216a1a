import GripWire
import Testing

@Suite("DeviceProfiles.matching")
struct DeviceProfilesMatchingTests {
    @Test("a device advertising the Progressor service matches, whatever its name and the UUID's case")
    func byService() {
        let profile = DeviceProfiles.matching(name: "Renamed", serviceUUIDs: ["7E4E1701-1EA6-40C9-9DCC-13D34FFEAD57"])
        #expect(profile?.identifier == "progressor")
    }

    @Test("a device named Progressor… matches without advertised services")
    func byName() {
        #expect(DeviceProfiles.matching(name: "Progressor_1234", serviceUUIDs: [])?.identifier == "progressor")
    }

    @Test("other devices, and nameless ones without a known service, match nothing")
    func noMatch() {
        #expect(DeviceProfiles.matching(name: "Decoy Scale", serviceUUIDs: ["0000180d-0000-1000-8000-00805f9b34fb"]) == nil)
        #expect(DeviceProfiles.matching(name: nil, serviceUUIDs: []) == nil)
        #expect(DeviceProfiles.matching(name: "progressor", serviceUUIDs: []) == nil)
    }
}
