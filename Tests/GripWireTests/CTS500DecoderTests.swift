import GripWire
import Testing

/// The CTS500 / CTS-300 profile from the public facts (docs/devices.md, "CTS500 / CTS-300"): worked bytes from
/// hangtime-grip-connect's fixture and its checksum, computed here.
@Suite("CTS500 decoder")
struct CTS500DecoderTests {
    let cts = ByteStreamDecoding(profile: CTS500())

    /// 12.34 kg, 0 kg and 105.50 kg as the scale sends them.
    static let weights: [[UInt8]] = [
        [0x05, 0x01, 0x00, 0x00, 0x04, 0xD2, 0xDC], [0x05, 0x01, 0x00, 0x00, 0x00, 0x00, 0x06],
        [0x05, 0x01, 0x00, 0x00, 0x29, 0x36, 0x65],
    ]

    @Test("a weight frame is an unsigned big-endian count of 10 g, whole or cut anywhere")
    func weightFrames() {
        let stream = Self.weights.flatMap { $0 }
        #expect(cts.sameForcesHoweverCut(stream) == [12.34, 0, 105.5])
        #expect(cts.sameForcesHoweverCut(stream, chunk: 3) == [12.34, 0, 105.5])
        // hangtime's test splits one frame 3 + 4 bytes: the first part is a piece of a frame, not a failure.
        let (outcomes, kilograms) = cts.decode([[0x05, 0x01, 0x00], [0x00, 0x04, 0xD2, 0xDC]])
        #expect(outcomes == [.consumed, .samples(1)])
        #expect(kilograms == [12.34])
    }

    @Test("two frames and the start of a third in one notification give two samples, the third with the next")
    func mergedFrames() {
        let stream = Self.weights.flatMap { $0 }
        let (outcomes, kilograms) = cts.decode([Array(stream[0..<17]), Array(stream[17...])])
        #expect(outcomes == [.samples(2), .samples(1)])
        #expect(kilograms == [12.34, 0, 105.5])
    }

    @Test("a bad checksum is counted malformed, emits nothing from its notification, and the stream resynchronises")
    func badChecksum() {
        var bad = Self.weights[0]
        bad[6] &+= 1
        let (outcomes, kilograms) = cts.decode([bad, Self.weights[1], Self.weights[2]])
        #expect(outcomes == [.rejected(.badChecksum), .samples(1), .samples(1)])
        #expect(kilograms == [0, 105.5])
    }

    @Test("bytes before a header are unframed; the frame after them decodes with the next notification")
    func startsInsideAFrame() {
        let (outcomes, kilograms) = cts.decode([[0x04, 0xD2, 0xDC] + Array(Self.weights[1].prefix(4)), Array(Self.weights[1].suffix(3))])
        #expect(outcomes == [.rejected(.unframed), .samples(1)])
        #expect(kilograms == [0])
    }

    @Test("commands are 6 bytes with the additive checksum; their echoes are acknowledgements, not weights")
    func commandsAndEchoes() {
        let profile = CTS500()
        #expect(profile.encode(.startMeasurement) == [0x05, 0xAA, 0x00, 0x00, 0x00, 0xAF])
        #expect(profile.encode(.stopMeasurement) == [0x05, 0xAB, 0x00, 0x00, 0x00, 0xB0])
        #expect(profile.encode(.tare) == [0x05, 0xA6, 0x00, 0x00, 0x00, 0xAB])
        #expect(profile.encode(.battery) == [0x05, 0xC4, 0x00, 0x00, 0x00, 0xC9])
        #expect(profile.encode(.sampleRate) == [0x05, 0xC1, 0x00, 0x00, 0x03, 0xC9])
        #expect(profile.encode(.sleep) == nil)
        #expect(profile.command(fromControlWrite: [0x05, 0xA6, 0x00, 0x00, 0x00, 0xAB]) == .tare)
        #expect(profile.command(fromControlWrite: [0x05, 0xA6, 0x00, 0x00, 0x00, 0xAC]) == nil)
        #expect(profile.lifecycle.whenReady == [.sampleRate, .battery, .startMeasurement])
        // An echo, then a weight, in one notification: the echo is known and consumed.
        let (outcomes, kilograms) = cts.decode([profile.encode(.startMeasurement)! + Self.weights[0]])
        #expect(outcomes == [.samples(1)])
        #expect(kilograms == [12.34])
        #expect(cts.decode([profile.encode(.tare)!]).outcomes == [.consumed])
    }

    @Test("the battery answer 05 80 C4 00 01 63 AD reads 3.55 V; beside weights it waits for a notification without any")
    func battery() {
        let answer: [UInt8] = [0x05, 0x80, 0xC4, 0x00, 0x01, 0x63, 0xAD]
        #expect(cts.decode([answer]).outcomes == [.event(.batteryMillivolts(3_550))])
        let tail = Array(Self.weights[0].prefix(3))
        let (outcomes, kilograms) = cts.decode([answer + Self.weights[2], tail])
        #expect(outcomes == [.samples(1), .event(.batteryMillivolts(3_550))])
        #expect(kilograms == [105.5])
    }

    @Test("a weight outside 0-500 kg (a negative sent as two's complement would read 42 million kg) is out_of_range")
    func negativeAsTwosComplement() {
        let body: [UInt8] = [0x05, 0x01, 0xFF, 0xFF, 0xFF, 0x9C]
        #expect(cts.decode([body + [body.reduce(0, &+)]]).outcomes == [.rejected(.outOfRange)])
    }

    @Test("matched by its two exact names only: FFE0 is any HM-10 module's")
    func identity() {
        #expect(DeviceProfiles.matching(name: "CTS500", serviceUUIDs: [])?.identifier == "cts500")
        #expect(DeviceProfiles.matching(name: "CTS-300", serviceUUIDs: [])?.identifier == "cts500")
        #expect(DeviceProfiles.matching(name: "CTS5000", serviceUUIDs: []) == nil)
        #expect(DeviceProfiles.matching(name: "HMSoft", serviceUUIDs: ["0000ffe0-0000-1000-8000-00805f9b34fb"]) == nil)
        #expect(CTS500().dataServiceIsShared)
    }
}
