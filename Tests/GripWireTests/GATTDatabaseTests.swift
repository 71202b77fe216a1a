import GripSimulator
import GripTestSupport
import GripWire
import Testing

@Suite("GATTDatabase")
struct GATTDatabaseTests {
    @Test("16-bit wire UUIDs expand on the Bluetooth base UUID, lower-case")
    func shortUUIDs() {
        #expect(GATTDatabase.uuidString(fromWire: [0xE4, 0xFF]) == "0000ffe4-0000-1000-8000-00805f9b34fb")
        #expect(GATTDatabase.uuidString(fromWire: [0x02, 0x29]) == "00002902-0000-1000-8000-00805f9b34fb")
        #expect(GATTDatabase.uuidString(fromWire: [0x78, 0x56, 0x34, 0x12]) == "12345678-0000-1000-8000-00805f9b34fb")
    }

    @Test("128-bit wire UUIDs are byte-reversed into the canonical string")
    func longUUIDs() {
        let wire: [UInt8] = [0x57, 0xAD, 0xFE, 0x4F, 0xD3, 0x13, 0xCC, 0x9D, 0xC9, 0x40, 0xA6, 0x1E, 0x01, 0x17, 0x4E,
                             0x7E]
        #expect(GATTDatabase.uuidString(fromWire: wire) == "7e4e1701-1ea6-40c9-9dcc-13d34ffead57")
        #expect(GATTDatabase.wireBytes(uuid: "7E4E1701-1EA6-40C9-9DCC-13D34FFEAD57") == wire)
    }

    @Test("other wire lengths are not UUIDs")
    func badLengths() {
        for length in [0, 1, 3, 5, 15, 17] {
            #expect(GATTDatabase.uuidString(fromWire: [UInt8](repeating: 0xAB, count: length)) == nil)
        }
    }

    @Test("base UUIDs go on the wire as 2 bytes, whatever form they are written in")
    func wireBytesOfShortUUIDs() {
        let forms = [
            "ffe4", "0xFFE4", "FFE4", "0000ffe4-0000-1000-8000-00805f9b34fb", "0000ffe400001000800000805f9b34fb",
        ]
        for text in forms {
            #expect(GATTDatabase.wireBytes(uuid: text) == [0xE4, 0xFF], "\(text)")
        }
        #expect(GATTDatabase.wireBytes(uuid: "not a uuid") == nil)
        #expect(GATTDatabase.wireBytes(uuid: "7e4e1701-1ea6-40c9-9dcc-13d34ffead5") == nil)
        #expect(GATTDatabase.wireBytes(uuid: "7e4e1701x1ea6-40c9-9dcc-13d34ffead57") == nil)
    }

    @Test("wire → string → wire round-trips every 16-bit and many 128-bit UUIDs")
    func roundTrip() {
        for value in stride(from: 0, through: 0xFFFF, by: 257) {
            let wire: [UInt8] = [UInt8(value & 0xFF), UInt8(value >> 8)]
            #expect(GATTDatabase.uuidString(fromWire: wire).flatMap(GATTDatabase.wireBytes(uuid:)) == wire)
        }
        var generator = SplitMix64(seed: 42)
        for _ in 0..<200 {
            var wire = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
            wire[15] = 0xFF  // most significant byte: not a 16-bit base UUID, so it stays 16 bytes
            #expect(GATTDatabase.uuidString(fromWire: wire).flatMap(GATTDatabase.wireBytes(uuid:)) == wire)
        }
    }

    @Test("lookups resolve value handles, containing services and characteristic UUIDs in any form")
    func lookups() {
        let database = GATTDatabase(
            services: [.init(startHandle: 0x10, endHandle: 0x14, uuid: "FFE0"),
                       .init(startHandle: 0x01, endHandle: 0x07, uuid: "1800")],
            characteristics: [.init(declarationHandle: 0x11, properties: 0x10, valueHandle: 0x12, uuid: "ffe4")])
        #expect(database.services.map(\.startHandle) == [0x01, 0x10])
        #expect(database.characteristicUUID(forValueHandle: 0x12) == "0000ffe4-0000-1000-8000-00805f9b34fb")
        #expect(database.characteristicUUID(forValueHandle: 0x11) == nil)
        #expect(database.serviceUUID(containing: 0x14) == "0000ffe0-0000-1000-8000-00805f9b34fb")
        #expect(database.serviceUUID(containing: 0x15) == nil)
        #expect(database.valueHandle(forCharacteristic: "0000FFE4-0000-1000-8000-00805F9B34FB") == 0x12)
        #expect(database.valueHandle(forCharacteristic: "0xffe4") == 0x12)
        #expect(database.valueHandle(forCharacteristic: "ffe5") == nil)
        #expect(!database.isEmpty)
        #expect(GATTDatabase().isEmpty)
    }

    @Test("rediscovery replaces entries with the same handle instead of duplicating them")
    func replaceOnSameHandle() {
        var database = GATTDatabase()
        database.add(GATTDatabase.Characteristic(declarationHandle: 1, properties: 2, valueHandle: 2, uuid: "2a00"))
        database.add(GATTDatabase.Characteristic(declarationHandle: 1, properties: 0x10, valueHandle: 2, uuid: "2a19"))
        #expect(database.characteristics == [
            GATTDatabase.Characteristic(declarationHandle: 1, properties: 0x10, valueHandle: 2, uuid: "2a19"),
        ])
    }
}
