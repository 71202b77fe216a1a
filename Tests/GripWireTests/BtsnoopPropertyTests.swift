import GripTestSupport
import GripWire
import PropertyBased
import Testing

/// Whatever the bytes, the parser never traps: it emits events or throws `CaptureError`, the same way however the
/// input is cut, and its error points inside the input. (A trap would crash the test run.)
@Suite("btsnoop properties")
struct BtsnoopPropertyTests {
    static let btsnoopHeaders: [[UInt8]] = [1001, 1002, 2001].map { (datalink: UInt32) in
        Array("btsnoop".utf8) + [0, 0, 0, 0, 1] + (0..<4).map { UInt8(truncatingIfNeeded: datalink >> (24 - 8 * $0)) }
    }

    @Test("random bytes never trap and give the same outcome fed whole or in random chunks")
    func randomBytes() async {
        await propertyCheck(count: 300, input: Gen.uint8().array(of: 0...400), Gen.uint64()) { bytes, seed in
            Self.checkInvariants(bytes, seed: seed)
        }
    }

    @Test("random records after a valid header never trap and give the same outcome however they are cut")
    func randomRecordsAfterAValidHeader() async {
        await propertyCheck(
            count: 300, input: Gen.int(in: 0...2), Gen.uint8().array(of: 0...600), Gen.uint64()
        ) { header, body, seed in
            Self.checkInvariants(Self.btsnoopHeaders[header] + body, seed: seed)
        }
    }

    @Test("well-framed records with random HCI, L2CAP and ATT contents never trap")
    func randomPacketsInValidRecords() async {
        let packet = Gen.uint8().array(of: 0...40)
        await propertyCheck(
            count: 300, input: Gen.int(in: 0...2), packet.array(of: 1...12), Gen.uint32(in: 0...7), Gen.uint64()
        ) { header, payloads, flags, seed in
            var bytes = Self.btsnoopHeaders[header]
            for (index, payload) in payloads.enumerated() {
                // Plausible prefixes so the random tail reaches the ACL, L2CAP and ATT layers.
                let shaped: [UInt8] = switch index % 3 {
                case 0: [0x02, 0x40, UInt8(index % 4) << 4, UInt8(payload.count + 4), 0,
                         UInt8(payload.count), 0, 4, 0] + payload
                case 1: [0x04, 0x3E, UInt8(payload.count)] + payload
                default: payload
                }
                var writer = BtsnoopWriter(datalink: .hciUART)
                writer.appendRecord(flags: (flags + UInt32(index)) % 8, payload: shaped, hostMicros: Int64(index))
                bytes += writer.bytes.dropFirst(16)
            }
            Self.checkInvariants(bytes, seed: seed)
        }
    }

    @Test("mutated valid captures never trap and give the same outcome however they are cut")
    func mutatedCaptures() async throws {
        let originals = [
            try CaptureFixtures.bytes("third-party/revcar-android-h4.btsnoop"),
            try CaptureFixtures.bytes("third-party/revcar-monitor-2001.btsnoop"),
            BtsnoopChunkingTests.richCapture(.hciUART),
            BtsnoopChunkingTests.richCapture(.linuxMonitor),
        ]
        await propertyCheck(
            count: 200, input: Gen.int(in: 0...3), Gen.int(in: 0...Int.max).array(of: 1...6),
            Gen.uint8().array(of: 6), Gen.uint64()
        ) { which, positions, values, seed in
            var bytes = originals[which]
            for (step, position) in positions.enumerated() where !bytes.isEmpty {
                let index = position % bytes.count
                switch position % 5 {
                case 0: bytes.remove(at: index)
                case 1: bytes.insert(values[step], at: index)
                case 2: bytes.removeSubrange(index...)
                default: bytes[index] = values[step]  // mostly overwrites, the likeliest corruption
                }
            }
            Self.checkInvariants(bytes, seed: seed)
        }
    }

    /// The properties every input must satisfy.
    static func checkInvariants(_ bytes: [UInt8], seed: UInt64) {
        let whole = feedWhole(bytes)
        let chunked = feedInRandomChunks(bytes, seed: seed, maximumChunk: 50)
        #expect(chunked == whole)
        #expect(whole.bytesConsumed <= Int64(bytes.count))
        if let error = whole.error {
            #expect(error.byteOffset >= 0 && error.byteOffset <= Int64(bytes.count))
            if let record = error.recordNumber { #expect(record == whole.recordsRead + 1) }
            #expect(!error.description.isEmpty)
            if error.recordNumber == nil { #expect(whole.events.isEmpty) }
        } else {
            #expect(whole.bytesConsumed == Int64(bytes.count))
        }
    }
}
