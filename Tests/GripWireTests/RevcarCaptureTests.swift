import GripTestSupport
import GripWire
import Testing

/// The real Android capture from madkaye/revcar-cli (MIT) and its datalink-2001 twin; expected values are tshark's
/// (captures/third-party/SOURCES.md).
@Suite("revcar captures")
struct RevcarCaptureTests {
    static let files = ["third-party/revcar-android-h4.btsnoop", "third-party/revcar-monitor-2001.btsnoop"]

    /// tshark's `frame.time_relative` (µs), `btatt.handle` and `btatt.value` for the six notifications.
    static let expectedNotifications: [(micros: Int64, handle: UInt16, value: [UInt8])] = [
        (2_093_037, 0x0012, [0x16, 0x05]),
        (4_432_857, 0x0012, [0x79, 0x76, 0x01]),
        (5_017_470, 0x0012, [0x19, 0x02, 0x02]),
        (5_441_511, 0x0012, [0x91, 0x01]),
        (5_442_158, 0x0012, [0x14, 0x0F, 0x06, 0x06, 0x1D, 0x04]),
        (12_342_212, 0x0012, [0x79, 0x76, 0x01]),
    ]

    @Test("both datalinks give exactly tshark's six notifications, timed from the first record", arguments: files)
    func notificationsMatchTshark(file: String) throws {
        let outcome = feedWhole(try CaptureFixtures.bytes(file))
        #expect(outcome.error == nil)
        let first = try #require(outcome.firstRecordMicros)
        let got = outcome.notifications
        try #require(got.count == Self.expectedNotifications.count, "\(got)")
        for (actual, expected) in zip(got, Self.expectedNotifications) {
            #expect(actual.hostMicros - first == expected.micros)
            #expect(actual.handle == expected.handle)
            #expect(actual.value == expected.value)
        }
        // Every notification arrives on adapter 0, connection 0x002, from the device.
        for event in outcome.events {
            if case .notification(let link, _, _, _) = event { #expect(link == LinkKey(adapter: 0, connection: 2)) }
        }
    }

    @Test("handle 0x0012 maps to service 0xffe0 and characteristic 0xffe4 through the captured discovery",
          arguments: files)
    func discoveryMapsTheNotifiedHandle(file: String) throws {
        let gatt = feedWhole(try CaptureFixtures.bytes(file)).gatt
        #expect(gatt.characteristicUUID(forValueHandle: 0x0012) == "0000ffe4-0000-1000-8000-00805f9b34fb")
        #expect(gatt.serviceUUID(containing: 0x0012) == "0000ffe0-0000-1000-8000-00805f9b34fb")
        #expect(gatt.valueHandle(forCharacteristic: "ffe4") == 0x0012)
        #expect(gatt.services.map(\.uuid).map { $0.dropFirst(4).prefix(4) } == [
            "1800", "1801", "180a", "ffe0", "ffe5", "ffa0", "ff90", "ff30", "ff10",
        ])
        #expect(gatt.services.last?.endHandle == 0xFFFF)
        // tshark lists 20 characteristic declarations in the ten 0x09 responses (the 0x2802 include searches all
        // end in errors) and four descriptors in the three 0x05 responses.
        #expect(gatt.characteristics.count == 20)
        #expect(gatt.characteristics.first { $0.valueHandle == 0x0012 }?.properties == 0x10)
        #expect(gatt.descriptors == [
            GATTDatabase.Descriptor(handle: 0x0013, uuid: "2901"),
            GATTDatabase.Descriptor(handle: 0x0014, uuid: "2902"),
            GATTDatabase.Descriptor(handle: 0x0018, uuid: "2901"),
            GATTDatabase.Descriptor(handle: 0x001C, uuid: "2902"),
        ])
    }

    @Test("the Android file has 149 records and its monitor twin 150, with the same first timestamp")
    func recordCountsAndClock() throws {
        let android = feedWhole(try CaptureFixtures.bytes(Self.files[0]))
        let monitor = feedWhole(try CaptureFixtures.bytes(Self.files[1]))
        #expect(android.recordsRead == 149)
        #expect(monitor.recordsRead == 150)
        #expect(android.bytesConsumed == 5938)
        // 2021-04-04 21:32:20.801683 UTC
        #expect(android.firstRecordMicros == 1_617_571_940_801_683)
        #expect(monitor.firstRecordMicros == android.firstRecordMicros)
        #expect(android.events == monitor.events)
        #expect(android.gatt == monitor.gatt)
    }

    @Test("the CCCD write enabling notifications is reported as a write to handle 0x0014")
    func cccdWrite() throws {
        let outcome = feedWhole(try CaptureFixtures.bytes(Self.files[0]))
        let writes = outcome.events.compactMap { event -> (UInt16, [UInt8])? in
            if case .write(_, let handle, let value, _) = event { (handle, value) } else { nil }
        }
        #expect(writes.first { $0.0 == 0x0014 }?.1 == [0x01, 0x00])
        // tshark counts 4 Write Requests and 57 Write Commands, all sent by the phone.
        #expect(writes.count == 61)
    }
}
