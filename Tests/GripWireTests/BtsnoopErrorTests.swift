import GripTestSupport
import GripWire
import Testing

@Suite("btsnoop errors")
struct BtsnoopErrorTests {
    static let revcar = "third-party/revcar-android-h4.btsnoop"

    @Test("a file cut inside a record names the record and its byte offset, after replaying the records before it")
    func truncatedRecord() throws {
        let bytes = try CaptureFixtures.bytes(Self.revcar)
        // Record 76 (the first notification) starts where records 1…75 end.
        let offsets = Self.recordOffsets(bytes)
        let start = offsets[75]
        let cut = Array(bytes.prefix(start + 24 + 7))
        let outcome = feedWhole(cut)
        let expected = CaptureError(.truncatedRecord, recordNumber: 76, byteOffset: Int64(start), declaredLength: 14,
                                    bytesPresent: 7)
        #expect(outcome.error == expected)
        #expect(outcome.recordsRead == 75)
        #expect(outcome.notifications.isEmpty)
        #expect(outcome.events.count { if case .write = $0 { true } else { false } } > 0)
        #expect(expected.description == "capture is truncated: record 76 at byte \(start) declares 14 bytes but the "
            + "file ends after 7; the 75 records before it were replayed")
    }

    @Test("a file cut after the first notification keeps that notification")
    func eventsBeforeTheErrorStayEmitted() throws {
        let bytes = try CaptureFixtures.bytes(Self.revcar)
        let offsets = Self.recordOffsets(bytes)
        let outcome = feedWhole(Array(bytes.prefix(offsets[76] + 10)))
        #expect(outcome.notifications.map(\.value) == [[0x16, 0x05]])
        #expect(outcome.error == CaptureError(.truncatedHeader, recordNumber: 77, byteOffset: Int64(offsets[76]),
                                              declaredLength: 24, bytesPresent: 10))
        #expect(outcome.error?.description == "capture is truncated: record 77 at byte \(offsets[76]) has only 10 of "
            + "its 24 header bytes; the 76 records before it were replayed")
    }

    @Test("an empty file and a cut file header are truncated headers")
    func truncatedFileHeader() {
        #expect(feedWhole([]).error == CaptureError(.truncatedHeader, byteOffset: 0, declaredLength: 16,
                                                    bytesPresent: 0))
        let seven = Array(BtsnoopWriter(datalink: .hciUART).bytes.prefix(7))
        let error = feedWhole(seven).error
        #expect(error == CaptureError(.truncatedHeader, byteOffset: 0, declaredLength: 16, bytesPresent: 7))
        #expect(error?.description == "capture is truncated: the file ends after 7 of the 16 btsnoop header bytes")
    }

    @Test("a header-only file is a valid capture with no records")
    func headerOnly() {
        let outcome = feedWhole(BtsnoopWriter(datalink: .linuxMonitor).bytes)
        #expect(outcome.error == nil)
        #expect(outcome.recordsRead == 0)
        #expect(outcome.firstRecordMicros == nil)
    }

    @Test("a file that does not start with btsnoop\\0 is rejected as bad magic")
    func badMagic() {
        var bytes = BtsnoopWriter(datalink: .hciUART).bytes
        bytes[0] = UInt8(ascii: "B")
        let error = feedWhole(bytes).error
        #expect(error == CaptureError(.badMagic, byteOffset: 0))
        #expect(error?.description == "not a btsnoop capture: the file does not start with \"btsnoop\\0\" (byte 0)")
        // A pcap file, for instance.
        #expect(feedWhole([0xD4, 0xC3, 0xB2, 0xA1] + [UInt8](repeating: 0, count: 20)).error?.kind == .badMagic)
    }

    @Test("a version other than 1 is rejected and named")
    func badVersion() {
        var bytes = BtsnoopWriter(datalink: .hciUART).bytes
        bytes[11] = 2
        let error = feedWhole(bytes).error
        #expect(error == CaptureError(.unsupportedVersion, byteOffset: 8, foundVersion: 2))
        #expect(error?.description == "unsupported btsnoop version 2 at byte 8: only version 1 exists")
    }

    @Test("datalinks 1003, 1004, 2002 and unknown ones are rejected with their number",
          arguments: [UInt32(1003), 1004, 2002, 0, 1000, 0xFFFF_FFFF])
    func unsupportedDatalink(datalink: UInt32) {
        var bytes = BtsnoopWriter(datalink: .hciUART).bytes
        for index in 0..<4 { bytes[12 + index] = UInt8(truncatingIfNeeded: datalink >> (24 - 8 * index)) }
        let error = feedWhole(bytes).error
        #expect(error == CaptureError(.unsupportedDatalink(datalink), byteOffset: 12))
        #expect(error?.description.contains("unsupported btsnoop datalink \(datalink)") == true)
    }

    @Test("datalink 1001 (HCI unencapsulated) is read, the packet type taken from the flags")
    func datalink1001() {
        var writer = BtsnoopWriter(datalink: .hciUART)
        writer.appendRecord(flags: 3, payload: [0x05, 4, 0x00, 0x40, 0x00, 0x13], hostMicros: 5)  // event
        writer.appendRecord(flags: 1, payload: [0x40, 0x20, 9, 0, 5, 0, 4, 0, 0x1B, 0x0A, 0, 0xAA, 0xBB],
                            hostMicros: 6)  // ACL
        var bytes = writer.bytes
        bytes[14] = 0x03
        bytes[15] = 0xE9  // 1001
        var parser = BtsnoopParser()
        var events: [CaptureEvent] = []
        #expect(throws: Never.self) {
            try parser.feed(bytes) { events.append($0) }
            try parser.finish()
        }
        #expect(parser.datalinkCode == 1001)
        #expect(parser.datalink == .hciUART)
        let link = LinkKey(adapter: 0, connection: 0x40)
        #expect(events == [
            .disconnected(link: link, reason: 0x13, hostMicros: 5),
            .notification(link: link, handle: 0x0A, value: [0xAA, 0xBB], hostMicros: 6),
        ])
    }

    @Test("an included length above the original length or above 64 KiB is impossible",
          arguments: [(UInt32(20), UInt32(10)), (70_000, 70_000), (65_537, 100_000)])
    func impossibleLength(included: UInt32, original: UInt32) {
        var writer = BtsnoopWriter(datalink: .hciUART)
        writer.appendATT(ATTPDU.notification(handle: 1, value: [1]), connection: 1, direction: .received,
                         hostMicros: 0)
        let offset = writer.bytes.count
        writer.appendRecord(flags: 1, payload: [], hostMicros: 0, originalLength: original)
        var bytes = writer.bytes
        for index in 0..<4 { bytes[offset + 4 + index] = UInt8(truncatingIfNeeded: included >> (24 - 8 * index)) }
        let outcome = feedWhole(bytes)
        #expect(outcome.error == CaptureError(.impossibleLength(included), recordNumber: 2, byteOffset: Int64(offset),
                                              declaredLength: Int(original)))
        #expect(outcome.notifications.count == 1)
        #expect(outcome.error?.description.hasPrefix("impossible record: record 2 at byte \(offset) declares "
            + "\(included) included bytes (original length \(original))") == true)
    }

    @Test("a snapped record (included < original) is accepted; the cut packet is skipped, not trusted")
    func snappedRecord() {
        var writer = BtsnoopWriter(datalink: .hciUART)
        // ACL header says 9 bytes of L2CAP data but the record kept only 5 of them.
        writer.appendRecord(flags: 1, payload: [0x02, 0x40, 0x20, 9, 0, 5, 0, 4, 0, 0x1B], hostMicros: 0,
                            originalLength: 14)
        let outcome = feedWhole(writer.bytes)
        #expect(outcome.error == nil)
        #expect(outcome.events.isEmpty)
        #expect(outcome.recordsRead == 1)
    }

    @Test("after an error the parser stays failed: feed and finish throw the same error again")
    func errorsAreSticky() throws {
        var parser = BtsnoopParser()
        let bad: [UInt8] = Array("btsnoop".utf8) + [0] + [0, 0, 0, 9] + [0, 0, 0x03, 0xEA]  // version 9
        let first = try #require(throws: CaptureError.self) { try parser.feed(bad) { _ in } }
        #expect(first.foundVersion == 9)
        #expect(throws: first) { try parser.feed(BtsnoopWriter(datalink: .hciUART).bytes) { _ in } }
        #expect(throws: first) { try parser.finish() }
    }

    @Test("an io error names the record being read when one was")
    func ioDescription() {
        let error = CaptureError(.io("cannot read x: Input/output error"), recordNumber: 3, byteOffset: 100)
        #expect(error.description
            == "cannot read x: Input/output error (at record 3, byte 100; the 2 records before it were replayed)")
    }

    /// Byte offsets of each record (index 0 = record 1).
    static func recordOffsets(_ bytes: [UInt8]) -> [Int] {
        var offsets: [Int] = []
        var offset = 16
        while offset + 24 <= bytes.count {
            offsets.append(offset)
            offset += 24 + bytes[(offset + 4)..<(offset + 8)].reduce(0) { $0 << 8 | Int($1) }
        }
        return offsets
    }
}
