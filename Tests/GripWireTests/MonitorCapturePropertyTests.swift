import GripTestSupport
import GripWire
import PropertyBased
import Testing

/// Whatever the kernel (or a broken read) hands over, the capture never traps, writes a file the btsnoop reader
/// accepts, and with `--device` never lets another device's address through. (A trap would crash the test run.)
@Suite("capture properties")
struct MonitorCapturePropertyTests {
    typealias Fixtures = MonitorFrameFixtures

    @Test("random reads never trap; the counts add up and the file is a well-formed capture")
    func randomReads() async {
        await propertyCheck(count: 300, input: Gen.uint8().array(of: 0...60).array(of: 0...20), Gen.bool) {
            reads, withDevice in
            var capture = MonitorCapture(filter: CaptureFilter(device: withDevice ? Fixtures.progressor : nil))
            var file = MonitorCapture.fileHeader
            for (position, read) in reads.enumerated() {
                // Half of the reads get a header whose len matches, so they reach the filter.
                let shaped = position % 2 == 0 && read.count >= 6
                    ? Array(read[0..<4]) + Fixtures.le(UInt16(read.count - 6)) + read[6...] : read
                if let record = capture.take(shaped, hostMicros: Int64(position)) { file += record }
            }
            #expect(capture.counts.framesSeen == reads.count)
            #expect(capture.counts.framesKept + capture.counts.malformedFrames <= reads.count)
            #expect(capture.counts.fileBytes == Int64(file.count))
            let outcome = feedWhole(file)
            #expect(outcome.error == nil)
            #expect(outcome.recordsRead == capture.counts.framesKept)
        }
    }

    @Test("with --device, two devices' random traffic never leaks the stranger's address; filtering twice is once")
    func deviceFilterIsTightAndIdempotent() async {
        let frame = zip(Gen.int(in: 0...8), Gen.bool, Gen.bool, Gen.uint8().array(of: 0...8))
        await propertyCheck(count: 300, input: frame.array(of: 1...30)) { frames in
            let reads = frames.map { Self.frame($0.0, $0.1, $0.2, $0.3) }
            let once = Self.filtered(reads)
            let twice = Self.filtered(once)
            #expect(once == twice)
            let stranger = Array(Fixtures.stranger.reversed())
            #expect(!once.contains { Fixtures.contains($0.payload, stranger) })
        }
    }

    /// A plausible frame of one device or the other, so the random tail reaches every rule of the filter.
    static func frame(_ kind: Int, _ ours: Bool, _ firstHandle: Bool, _ tail: [UInt8]) -> MonitorFrame {
        let address = Array((ours ? Fixtures.progressor : Fixtures.stranger).reversed())
        let handle = Fixtures.le(firstHandle ? 0x0040 : 0x0077)
        let status = tail.first.map { $0 & 1 } ?? 0
        let payload: [UInt8]
        let opcode: MonitorOpcode
        switch kind {
        case 0:
            (opcode, payload) = (.newIndex, [0x00, 0x01] + tail)
        case 1:
            (opcode, payload) = (.event, Fixtures.event(0x3E, [0x01, status] + handle + [0x00, 0x00] + address
                + [0x18, 0x00, 0x00, 0x00, 0xF4, 0x01, 0x00]))
        case 2:
            // Two reports: this device's and the other's, in either order.
            let other = Array((ours ? Fixtures.stranger : Fixtures.progressor).reversed())
            let reports = [address, other].map { [0x00, 0x00] + $0 + [UInt8(tail.count)] + tail + [0xC4] }
            (opcode, payload) = (.event, Fixtures.event(0x3E, [0x02, 0x02] + reports.joined()))
        case 3:
            (opcode, payload) = (status == 0 ? .aclReceived : .aclSent,
                                 handle + Fixtures.le(UInt16(tail.count)) + tail)
        case 4:
            (opcode, payload) = (.event, Fixtures.event(0x05, [status] + handle + [0x13]))
        case 5:
            (opcode, payload) = (.event, Fixtures.event(0x13, [0x02, 0x40, 0x00, 0x01, 0x00, 0x77, 0x00, 0x02, 0x00]))
        case 6:
            (opcode, payload) = (.command, Fixtures.command(0x200D, [0x60, 0x00, 0x60, 0x00, 0x00, 0x00] + address))
        case 7:
            (opcode, payload) = (.event, Fixtures.event(0x0F, [0x00, 0x01, 0x0D, 0x20]))
        default:
            // Anything at all, its length byte possibly wrong.
            (opcode, payload) = (MonitorOpcode(rawValue: UInt16(tail.first ?? 3) % 20), tail)
        }
        return MonitorFrame(opcode: opcode, index: 0, payload: payload)
    }

    static func filtered(_ frames: [MonitorFrame]) -> [MonitorFrame] {
        var filter = CaptureFilter(device: Fixtures.progressor)
        return frames.compactMap { filter.filter($0) }
    }
}
