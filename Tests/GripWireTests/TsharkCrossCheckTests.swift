import Foundation
import GripTestSupport
import GripWire
import Testing

/// BtsnoopParser against an independent reader: Debian's tshark. Runs when tshark is on PATH; without it the test
/// is skipped, except under CI (`CI` set), where a missing tshark fails.
@Suite("tshark cross-check")
struct TsharkCrossCheckTests {
    static let enabled = Tshark.locate() != nil || Tshark.isRequired

    @Test("every capture under captures/ gives tshark's notifications: frame, time, handle and value bytes",
          .enabled(if: enabled))
    func everyCaptureMatchesTshark() throws {
        let tshark = try Self.requireTshark()
        let files = CaptureFixtures.allBtsnoopFiles()
        try #require(!files.isEmpty, "no *.btsnoop under \(CaptureFixtures.capturesDirectory.path)")
        for file in files {
            try Self.compare(path: file.path, bytes: Array(try Data(contentsOf: file)), tshark: tshark)
        }
    }

    @Test("synthetic captures with fragmentation, indications and 0x23 agree with tshark on both datalinks",
          .enabled(if: enabled), arguments: [BtsnoopDatalink.hciUART, .linuxMonitor])
    func syntheticCaptureMatchesTshark(datalink: BtsnoopDatalink) throws {
        let tshark = try Self.requireTshark()
        var writer = BtsnoopWriter(datalink: datalink)
        writer.appendNewIndex(address: [0xB8, 0x27, 0xEB, 1, 2, 3], name: "hci0", hostMicros: 1_700_000_000_000_000)
        writer.appendLEConnectionComplete(connection: 0x40, peer: [0xC4, 1, 2, 3, 4, 5],
                                          hostMicros: 1_700_000_000_000_100)
        for index in 0..<5 {
            let value = (0..<(20 * index + 2)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ index) }
            writer.appendATT(ATTPDU.notification(handle: 0x000E, value: value), connection: 0x40,
                             direction: .received, hostMicros: 1_700_000_000_012_500 + Int64(index) * 12_500)
        }
        writer.appendATT(ATTPDU.indication(handle: 0x0020, value: [9, 8, 7]), connection: 0x40, direction: .received,
                         hostMicros: 1_700_000_001_000_000)
        writer.appendATT(ATTPDU.multipleHandleValueNotification([(0x000E, [1, 2]), (0x0020, [3])]), connection: 0x40,
                         direction: .received, hostMicros: 1_700_000_001_500_000)
        writer.appendATT(ATTPDU.notification(handle: 0x000E, value: []), connection: 0x40, direction: .received,
                         hostMicros: 1_700_000_002_000_000)
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("griptrack-tshark-\(datalink.rawValue)-\(getpid()).btsnoop").path
        try Data(writer.bytes).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let compared = try Self.compare(path: path, bytes: writer.bytes, tshark: tshark)
        #expect(compared >= 7)
    }

    static func requireTshark() throws -> String {
        guard let tshark = Tshark.locate() else {
            throw Tshark.Failure(
                description: "tshark is not on PATH but CI is set: install it (apt-get install -y tshark)")
        }
        return tshark
    }

    /// Compares one capture; returns how many notifications were compared.
    @discardableResult
    static func compare(path: String, bytes: [UInt8], tshark: String) throws -> Int {
        let report = try Tshark.notifications(in: path, tshark: tshark)
        let parsed = eventsByRecord(bytes)
        #expect(parsed.error == nil, "\(path): \(String(describing: parsed.error))")
        let first = feedWhole(bytes).firstRecordMicros ?? 0
        let ours: [Tshark.Notification] = parsed.events.compactMap { item in
            guard case .notification(_, let handle, let value, let micros) = item.event,
                  !report.undecodedMultipleNotificationFrames.contains(item.record)
            else { return nil }
            return Tshark.Notification(frame: item.record, relativeMicros: micros - first, handle: handle, value: value)
        }
        #expect(ours == report.notifications, "\(path)")
        // An advertising device's capture holds advertising reports instead: their manufacturer data must agree too.
        let adverts: [Tshark.Advertisement] = parsed.events.compactMap { item in
            guard case .advertisement(_, let address, let company, let data, _) = item.event else { return nil }
            return Tshark.Advertisement(frame: item.record, address: address, manufacturerID: company, data: data)
        }
        #expect(adverts == (try Tshark.advertisements(in: path, tshark: tshark)), "\(path)")
        #expect(!ours.isEmpty || !adverts.isEmpty, "\(path) has no notification or advertisement to compare")
        return ours.count + adverts.count
    }
}
