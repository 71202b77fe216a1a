import GripTestSupport
import GripWire
import Testing

/// A push parser must not care how its input is cut (swift-nio's ByteToMessageDecoderVerifier, applied to btsnoop).
@Suite("btsnoop chunking")
struct BtsnoopChunkingTests {
    /// A synthetic capture exercising every record path: NEW_INDEX, events, fragmented PDUs, 0x23, MTU, discovery.
    static func richCapture(_ datalink: BtsnoopDatalink) -> [UInt8] {
        var writer = BtsnoopWriter(datalink: datalink)
        writer.appendNewIndex(address: [1, 2, 3, 4, 5, 6], name: "hci0", hostMicros: 1_000)
        writer.appendLEConnectionComplete(connection: 0x40, peer: [6, 5, 4, 3, 2, 1], hostMicros: 2_000)
        writer.appendATT(ATTPDU.exchangeMTURequest(mtu: 517), connection: 0x40, direction: .sent, hostMicros: 3_000)
        writer.appendATT(ATTPDU.exchangeMTUResponse(mtu: 65), connection: 0x40, direction: .received,
                         hostMicros: 3_100)
        for (index, step) in ATTPDU.discoveryExchange(of: BtsnoopRoundTripTests.progressorGATT).enumerated() {
            writer.appendATT(step.pdu, connection: 0x40, direction: step.direction, hostMicros: 4_000 + Int64(index))
        }
        writer.appendATT(ATTPDU.writeRequest(handle: 0x0B, value: [1, 0]), connection: 0x40, direction: .sent,
                         hostMicros: 5_000)
        for frame in 0..<20 {
            let value = [0x01, 0x28] + (0..<40).map { UInt8(truncatingIfNeeded: frame * 40 + $0) }
            writer.appendATT(ATTPDU.notification(handle: 0x0A, value: value), connection: 0x40, direction: .received,
                             hostMicros: 6_000 + Int64(frame) * 12_500, aclDataLength: 27)
        }
        writer.appendATT(ATTPDU.multipleHandleValueNotification([(0x0A, [1]), (0x12, [2, 3])]), connection: 0x40,
                         direction: .received, hostMicros: 300_000)
        writer.appendRecord(flags: datalink == .linuxMonitor ? 12 : 1, payload: [], hostMicros: 300_001)
        writer.appendDisconnectionComplete(connection: 0x40, reason: 0x08, hostMicros: 400_000)
        return writer.bytes
    }

    static let revcar = ["third-party/revcar-android-h4.btsnoop", "third-party/revcar-monitor-2001.btsnoop"]

    @Test("whole, byte by byte and random chunks give identical events for the revcar captures", arguments: revcar)
    func revcarChunkings(file: String) throws {
        let bytes = try CaptureFixtures.bytes(file)
        #expect(chunkingDiscrepancies(bytes, seeds: 0..<16) == [])
        #expect(feedWhole(bytes).notifications.count == 6)
    }

    @Test("whole, byte by byte and random chunks give identical events for a synthetic capture",
          arguments: [BtsnoopDatalink.hciUART, .linuxMonitor])
    func syntheticChunkings(datalink: BtsnoopDatalink) {
        let bytes = Self.richCapture(datalink)
        let whole = feedWhole(bytes)
        #expect(whole.error == nil)
        #expect(whole.notifications.count == 22)
        #expect(chunkingDiscrepancies(bytes, seeds: 0..<16) == [])
    }

    @Test("chunkings agree on the error and on the events before it when the file is cut anywhere")
    func truncatedEverywhere() {
        let bytes = Self.richCapture(.hciUART)
        let boundaries = Set(BtsnoopErrorTests.recordOffsets(bytes) + [16])
        for length in Array(stride(from: 0, to: bytes.count, by: 37)) + Array(boundaries) {
            let cut = Array(bytes.prefix(length))
            let whole = feedWhole(cut)
            #expect((whole.error == nil) == boundaries.contains(length), "cut at \(length)")
            #expect(chunkingDiscrepancies(cut, seeds: 0..<2) == [], "cut at \(length)")
        }
    }

    @Test("empty chunks are harmless")
    func emptyChunks() {
        let bytes = Self.richCapture(.linuxMonitor)
        let sizes = (0..<bytes.count).flatMap { _ in [0, 1, 0] }
        #expect(feedInChunks(bytes, chunkSizes: sizes) == feedWhole(bytes))
    }
}
