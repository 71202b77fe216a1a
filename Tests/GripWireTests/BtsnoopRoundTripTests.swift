import GripTestSupport
import GripWire
import Testing

/// BtsnoopWriter → BtsnoopParser: what the simulator writes is what replay reads, on both datalinks.
@Suite("btsnoop writer → parser round trip")
struct BtsnoopRoundTripTests {
    static let datalinks: [BtsnoopDatalink] = [.hciUART, .linuxMonitor]
    static let link = LinkKey(adapter: 0, connection: 0x0040)
    static let t0: Int64 = 1_700_000_000_000_000

    /// A Progressor-like peripheral: GAP with a 16-bit service, then the 128-bit Progressor service with its data
    /// point (notify, CCCD) and control point (write).
    static let progressorGATT = GATTDatabase(
        services: [
            .init(startHandle: 0x0001, endHandle: 0x0007, uuid: "1800"),
            .init(startHandle: 0x0008, endHandle: 0x000F, uuid: "7e4e1701-1ea6-40c9-9dcc-13d34ffead57"),
            .init(startHandle: 0x0010, endHandle: 0xFFFF, uuid: "fe59"),
        ],
        characteristics: [
            .init(declarationHandle: 0x0002, properties: 0x02, valueHandle: 0x0003, uuid: "2a00"),
            .init(declarationHandle: 0x0004, properties: 0x02, valueHandle: 0x0005, uuid: "2a01"),
            .init(declarationHandle: 0x0009, properties: 0x10, valueHandle: 0x000A,
                  uuid: "7e4e1702-1ea6-40c9-9dcc-13d34ffead57"),
            .init(declarationHandle: 0x000C, properties: 0x0C, valueHandle: 0x000D,
                  uuid: "7E4E1703-1EA6-40C9-9DCC-13D34FFEAD57"),
            .init(declarationHandle: 0x0011, properties: 0x28, valueHandle: 0x0012,
                  uuid: "8ec90003-f315-4f60-9fb8-838830daea50"),
        ],
        descriptors: [.init(handle: 0x000B, uuid: "2902"), .init(handle: 0x0013, uuid: "2902")])

    @Test("advertising reports: every manufacturer-data structure of a legacy or extended report, with its sender",
          arguments: datalinks)
    func advertisingReports(datalink: BtsnoopDatalink) {
        let scale: [UInt8] = [0xF4, 0xD3, 0x6B, 0x4A, 0x17, 0x19]
        let other: [UInt8] = [0x11, 0x22, 0x33, 0x44, 0x55, 0x66]
        var writer = BtsnoopWriter(datalink: datalink)
        // Flags, a name, and manufacturer data under 0x0100; then an advertiser with no manufacturer data.
        writer.appendLEAdvertisingReport(
            address: scale, data: [0x02, 0x01, 0x06, 0x03, 0x09, 0x41, 0x42, 0x06, 0xFF, 0x00, 0x01, 0xAA, 0xBB, 0xCC],
            rssi: -60, hostMicros: Self.t0)
        writer.appendLEAdvertisingReport(address: other, data: [0x02, 0x01, 0x06], rssi: -80, hostMicros: Self.t0 + 1)
        // Extended Advertising Report (3E/0D): two reports; the first has no manufacturer data, the second two
        // structures (0x004C and 0x0100). Per report: type u16, address type, address, PHYs, SID, TX power, RSSI,
        // interval u16, direct address type and address, data length, data.
        func report(_ address: [UInt8], _ data: [UInt8]) -> [UInt8] {
            [0x13, 0x00, 0x01] + address.reversed() + [0x01, 0x00, 0xFF, 0x7F, 0xB0, 0x00, 0x00, 0x00]
                + [0, 0, 0, 0, 0, 0] + [UInt8(data.count)] + data
        }
        writer.appendEvent(
            code: 0x3E,
            parameters: [0x0D, 0x02] + report(other, [0x02, 0x01, 0x06])
                + report(scale, [0x04, 0xFF, 0x4C, 0x00, 0x01, 0x05, 0xFF, 0x00, 0x01, 0x0A, 0x0B]),
            hostMicros: Self.t0 + 2)
        // A structure running past the report's data is counted as malformed, not read beyond.
        writer.appendLEAdvertisingReport(address: scale, data: [0x09, 0xFF, 0x00, 0x01, 0x01], rssi: -60, hostMicros: Self.t0 + 3)
        let outcome = feedWhole(writer.bytes)
        #expect(outcome.events == [
            .advertisement(adapter: 0, address: scale, manufacturerID: 0x0100, data: [0xAA, 0xBB, 0xCC], hostMicros: Self.t0),
            .advertisement(adapter: 0, address: scale, manufacturerID: 0x004C, data: [0x01], hostMicros: Self.t0 + 2),
            .advertisement(adapter: 0, address: scale, manufacturerID: 0x0100, data: [0x0A, 0x0B], hostMicros: Self.t0 + 2),
        ])
        #expect(outcome.error == nil)
    }

    @Test("a 100-byte notification split into 27-byte ACL fragments is reassembled into one event",
          arguments: datalinks)
    func fragmentedNotification(datalink: BtsnoopDatalink) {
        let value = (0..<100).map { UInt8($0) }
        var writer = BtsnoopWriter(datalink: datalink)
        writer.appendATT(ATTPDU.notification(handle: 0x000A, value: value), connection: 0x40, direction: .received,
                         hostMicros: Self.t0, aclDataLength: 27)
        // L2CAP frame = 4 + 3 + 100 = 107 bytes → 27 + 27 + 27 + 26.
        #expect(writer.recordCount == 4)
        let outcome = feedWhole(writer.bytes)
        #expect(outcome.error == nil)
        #expect(outcome.events == [.notification(link: Self.link, handle: 0x000A, value: value, hostMicros: Self.t0)])
        #expect(outcome.droppedPartialPDUs == 0)
    }

    @Test("the first fragment is PB=00 when sent and PB=10 when received, continuations PB=01")
    func packetBoundaryFlags() {
        var writer = BtsnoopWriter(datalink: .hciUART)
        writer.appendATT(ATTPDU.writeRequest(handle: 0x0D, value: [UInt8](repeating: 7, count: 30)),
                         connection: 0x40, direction: .sent, hostMicros: Self.t0)
        writer.appendATT(ATTPDU.notification(handle: 0x0A, value: [UInt8](repeating: 9, count: 30)),
                         connection: 0x40, direction: .received, hostMicros: Self.t0)
        // Records: header 16 bytes, then each record 24-byte header + H4 byte + ACL header (handle u16 LE first).
        var flags: [UInt8] = []
        var offset = 16
        while offset < writer.bytes.count {
            let included = writer.bytes[(offset + 4)..<(offset + 8)].reduce(0) { $0 << 8 | Int($1) }
            flags.append(writer.bytes[offset + 24 + 2] >> 4)  // high nibble of the handle field's second byte
            offset += 24 + included
        }
        #expect(flags == [0b00, 0b01, 0b10, 0b01])
    }

    @Test("each entry of a Multiple Handle Value Notification (0x23) becomes its own notification",
          arguments: datalinks)
    func multipleHandleValueNotification(datalink: BtsnoopDatalink) {
        var writer = BtsnoopWriter(datalink: datalink)
        let pdu = ATTPDU.multipleHandleValueNotification([(0x000A, [1, 2, 3]), (0x0012, []), (0x000A, [4])])
        writer.appendATT(pdu, connection: 0x40, direction: .received, hostMicros: Self.t0)
        #expect(feedWhole(writer.bytes).events == [
            .notification(link: Self.link, handle: 0x000A, value: [1, 2, 3], hostMicros: Self.t0),
            .notification(link: Self.link, handle: 0x0012, value: [], hostMicros: Self.t0),
            .notification(link: Self.link, handle: 0x000A, value: [4], hostMicros: Self.t0),
        ])
    }

    @Test("indications count as notifications; notifications the host sends do not", arguments: datalinks)
    func onlyReceivedNotificationsCount(datalink: BtsnoopDatalink) {
        var writer = BtsnoopWriter(datalink: datalink)
        writer.appendATT(ATTPDU.indication(handle: 0x12, value: [5]), connection: 0x40, direction: .received,
                         hostMicros: Self.t0)
        writer.appendATT(ATTPDU.notification(handle: 0x2A, value: [6]), connection: 0x40, direction: .sent,
                         hostMicros: Self.t0 + 1)
        writer.appendATT(ATTPDU.writeRequest(handle: 0x2A, value: [7]), connection: 0x40, direction: .received,
                         hostMicros: Self.t0 + 2)
        #expect(feedWhole(writer.bytes).events == [
            .notification(link: Self.link, handle: 0x12, value: [5], hostMicros: Self.t0),
        ])
    }

    @Test("an MTU exchange reports the smaller proposal once the response arrives", arguments: datalinks)
    func mtuExchange(datalink: BtsnoopDatalink) {
        var writer = BtsnoopWriter(datalink: datalink)
        writer.appendATT(ATTPDU.exchangeMTURequest(mtu: 517), connection: 0x40, direction: .sent, hostMicros: Self.t0)
        writer.appendATT(ATTPDU.exchangeMTUResponse(mtu: 247), connection: 0x40, direction: .received,
                         hostMicros: Self.t0 + 800)
        // A response with no request before it says nothing.
        writer.appendATT(ATTPDU.exchangeMTUResponse(mtu: 100), connection: 0x40, direction: .received,
                         hostMicros: Self.t0 + 900)
        #expect(feedWhole(writer.bytes).events == [.mtuExchanged(link: Self.link, mtu: 247, hostMicros: Self.t0 + 800)])
    }

    @Test("connection and disconnection events carry the link, the peer address and the reason",
          arguments: datalinks)
    func connectionLifetime(datalink: BtsnoopDatalink) {
        let peer: [UInt8] = [0xC4, 0x4F, 0x33, 0x12, 0x34, 0x56]
        var writer = BtsnoopWriter(datalink: datalink)
        writer.appendNewIndex(address: [0xB8, 0x27, 0xEB, 0, 0, 1], name: "hci0", hostMicros: Self.t0)
        writer.appendLEConnectionComplete(connection: 0x40, peer: peer, hostMicros: Self.t0 + 1)
        writer.appendATT(ATTPDU.writeCommand(handle: 0x0D, value: [0x65]), connection: 0x40, direction: .sent,
                         hostMicros: Self.t0 + 2)
        writer.appendDisconnectionComplete(connection: 0x40, reason: 0x13, hostMicros: Self.t0 + 3)
        #expect(writer.recordCount == (datalink == .linuxMonitor ? 4 : 3))
        #expect(feedWhole(writer.bytes).events == [
            .connected(link: Self.link, peer: peer, hostMicros: Self.t0 + 1),
            .write(link: Self.link, handle: 0x0D, value: [0x65], hostMicros: Self.t0 + 2),
            .disconnected(link: Self.link, reason: 0x13, hostMicros: Self.t0 + 3),
        ])
    }

    @Test("replaying a Progressor-like discovery rebuilds its GATT database and resolves the data handle",
          arguments: datalinks, [23, 185])
    func progressorDiscovery(datalink: BtsnoopDatalink, mtu: Int) throws {
        var writer = BtsnoopWriter(datalink: datalink)
        for (index, step) in ATTPDU.discoveryExchange(of: Self.progressorGATT, mtu: mtu).enumerated() {
            writer.appendATT(step.pdu, connection: 0x40, direction: step.direction, hostMicros: Self.t0 + Int64(index))
        }
        let gatt = feedWhole(writer.bytes).gatt
        #expect(gatt == Self.progressorGATT)
        let progressor = TindeqProgressor()
        let dataHandle = try #require(gatt.valueHandle(forCharacteristic: progressor.dataCharacteristicUUID))
        #expect(dataHandle == 0x000A)
        #expect(gatt.serviceUUID(containing: dataHandle) == progressor.serviceUUID)
        #expect(gatt.characteristicUUID(forValueHandle: 0x000D) == progressor.controlCharacteristicUUID)
        #expect(DeviceProfiles.forDataCharacteristic(try #require(gatt.characteristicUUID(forValueHandle: dataHandle)))?
            .identifier == "progressor")
    }

    @Test("the 128-bit service UUID goes on the wire byte-reversed, as the reference shows")
    func progressorServiceWireBytes() {
        let pdu = ATTPDU.readByGroupTypeResponse(services: [
            .init(startHandle: 8, endHandle: 15, uuid: "7e4e1701-1ea6-40c9-9dcc-13d34ffead57"),
        ])
        #expect(pdu == [0x11, 20, 0x08, 0x00, 0x0F, 0x00,
                        0x57, 0xAD, 0xFE, 0x4F, 0xD3, 0x13, 0xCC, 0x9D, 0xC9, 0x40, 0xA6, 0x1E, 0x01, 0x17, 0x4E, 0x7E])
    }

    @Test("fragments of two connections and both directions interleaved are reassembled independently")
    func interleavedReassembly() {
        let a = (0..<60).map { UInt8($0) }
        let b = (100..<160).map { UInt8($0) }
        var first = BtsnoopWriter(datalink: .linuxMonitor)
        first.appendATT(ATTPDU.notification(handle: 1, value: a), connection: 1, direction: .received, hostMicros: 10)
        var second = BtsnoopWriter(datalink: .linuxMonitor)
        second.appendATT(ATTPDU.notification(handle: 2, value: b), connection: 2, direction: .received, hostMicros: 20)
        var third = BtsnoopWriter(datalink: .linuxMonitor)
        third.appendATT(ATTPDU.writeCommand(handle: 3, value: a), connection: 1, direction: .sent, hostMicros: 30)
        // Interleave the records of the three PDUs one by one.
        let streams = [first, second, third].map { Self.records(of: $0.bytes) }
        var bytes = Array(first.bytes.prefix(16))
        for index in 0..<streams.map(\.count).max()! {
            for stream in streams where index < stream.count { bytes += stream[index] }
        }
        let outcome = feedWhole(bytes)
        #expect(outcome.events == [
            .notification(link: LinkKey(adapter: 0, connection: 1), handle: 1, value: a, hostMicros: 10),
            .notification(link: LinkKey(adapter: 0, connection: 2), handle: 2, value: b, hostMicros: 20),
            .write(link: LinkKey(adapter: 0, connection: 1), handle: 3, value: a, hostMicros: 30),
        ])
        #expect(outcome.droppedPartialPDUs == 0)
    }

    @Test("a new first fragment drops the unfinished PDU, counts it, and the new PDU still arrives")
    func newFirstFragmentDropsPartial() {
        var writer = BtsnoopWriter(datalink: .hciUART)
        var partial = BtsnoopWriter(datalink: .hciUART)
        partial.appendATT(ATTPDU.notification(handle: 1, value: [UInt8](repeating: 1, count: 50)), connection: 0x40,
                          direction: .received, hostMicros: 1)
        writer.appendRecord(flags: 1, payload: Array(Self.records(of: partial.bytes)[0].dropFirst(24)), hostMicros: 1)
        writer.appendATT(ATTPDU.notification(handle: 2, value: [2]), connection: 0x40, direction: .received,
                         hostMicros: 2)
        let outcome = feedWhole(writer.bytes)
        #expect(outcome.events == [.notification(link: Self.link, handle: 2, value: [2], hostMicros: 2)])
        #expect(outcome.droppedPartialPDUs == 1)
    }

    @Test("a monitor DEL_INDEX drops the adapter's partial PDUs; later continuations are orphans, not events")
    func deleteIndexDropsPartials() {
        var fragments = BtsnoopWriter(datalink: .linuxMonitor)
        fragments.appendATT(ATTPDU.notification(handle: 1, value: [UInt8](repeating: 3, count: 40)), connection: 0x40,
                            direction: .received, hostMicros: 1)
        let records = Self.records(of: fragments.bytes)
        #expect(records.count == 2)
        var writer = BtsnoopWriter(datalink: .linuxMonitor)
        var bytes = writer.bytes + records[0]
        writer.appendRecord(flags: 1, payload: [], hostMicros: 2)  // DEL_INDEX, adapter 0
        bytes += Self.records(of: writer.bytes)[0] + records[1]
        var parser = BtsnoopParser()
        var events: [CaptureEvent] = []
        #expect(throws: Never.self) {
            try parser.feed(bytes) { events.append($0) }
            try parser.finish()
        }
        #expect(events.isEmpty)
        #expect(parser.droppedPartialPDUs == 1)
        #expect(parser.orphanFragments == 1)
    }

    @Test("only the ATT channel is decoded: L2CAP signalling and SMP are ignored")
    func otherChannelsIgnored() {
        var writer = BtsnoopWriter(datalink: .hciUART)
        for channel: UInt16 in [0x0005, 0x0006] {
            let frame: [UInt8] = [3, 0, UInt8(channel), 0, 0x1B, 0x0A, 0x00]
            writer.appendRecord(flags: 1, payload: [0x02, 0x40, 0x20, 7, 0] + frame, hostMicros: 1)
        }
        let outcome = feedWhole(writer.bytes)
        #expect(outcome.events.isEmpty)
        #expect(outcome.recordsRead == 2)
    }

    /// Splits a capture into its records (each with its 24-byte header), skipping the file header.
    static func records(of bytes: [UInt8]) -> [[UInt8]] {
        var records: [[UInt8]] = []
        var offset = 16
        while offset + 24 <= bytes.count {
            let included = bytes[(offset + 4)..<(offset + 8)].reduce(0) { $0 << 8 | Int($1) }
            records.append(Array(bytes[offset..<(offset + 24 + included)]))
            offset += 24 + included
        }
        return records
    }
}
