import GripWire
import Testing

/// The Griptonite Motherboard profile from hangtime-grip-connect's `motherboard.model.ts`, its tests and jtvjan's
/// grippynotes (docs/devices.md, "Griptonite Motherboard").
@Suite("Motherboard decoder")
struct MotherboardDecoderTests {
    let board = ByteStreamDecoding(profile: GriptoniteMotherboard())

    /// hangtime's test table: every sensor `k,0,0,0` and `k,1,100,100` (mass = ADC).
    static let identityTable = Array((0..<4).map { "\($0),0,0,0\r\n\($0),1,100,100\r\n" }.joined().utf8)
    /// hangtime's test line: sample 1, battery 300, left 10, centre −20, right −30.
    static let fixtureLine = Array("01002C010A0000ECFFFFE2FFFF000000\r\n".utf8)

    /// A data line for these raw readings (sample number `number`).
    static func line(number: UInt16, left: Int32, centre: Int32, right: Int32) -> [UInt8] {
        var bytes: [UInt8] = [UInt8(number & 0xFF), UInt8(number >> 8), 0x2C, 0x01]
        for raw in [left, centre, right, 0] {
            let bits = UInt32(bitPattern: raw)
            bytes += [UInt8(bits & 0xFF), UInt8(bits >> 8 & 0xFF), UInt8(bits >> 16 & 0xFF)]
        }
        return Array((bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16, uppercase: true) }.joined() + "\r\n").utf8)
    }

    @Test("hangtime's fixture: 10, 20 and 30 kg on left, centre and right, 60 kg in all, however the link cuts it")
    func fixture() {
        let stream = Self.identityTable + Array("Stream: 30\r\n".utf8) + Self.fixtureLine
        #expect(board.sameForcesHoweverCut(stream, chunk: 20) == [60])
        #expect(board.sameForcesHoweverCut(stream, chunk: 7) == [60])
        var decoder = GriptoniteMotherboard().makeDecoder()
        _ = stream.withUnsafeBytes { decoder.decode($0, hostMicros: 1_000_000) { _ in } }
        let cells = decoder.lastCells
        #expect(abs(cells[0] - 10) < 1e-4 && abs(cells[1] - 20) < 1e-4 && abs(cells[2] - 30) < 1e-4)
        #expect(abs(cells[3] - 60) < 1e-4)
        #expect(decoder.isCalibrated)
    }

    @Test("two lines sharing a notification, one split across two: each notification counts the lines that end in it")
    func linesSharedAndSplit() {
        let two = Self.line(number: 1, left: 10, centre: -10, right: -10) + Self.line(number: 2, left: 20, centre: -10, right: -10)
        let (outcomes, kilograms) = board.decode([Self.identityTable, Array(two[0..<50]), Array(two[50...])])
        #expect(outcomes == [.consumed, .samples(1), .samples(1)])
        #expect(kilograms == [30, 40])
    }

    @Test("readings beyond the table are extrapolated along its end segment, not read as 0 (hangtime's bug)")
    func beyondTheTable() {
        let table = Array("0,0,0.0,0\r\n0,1,10.0,1000\r\n0,2,20.0,2500\r\n1,0,0,0\r\n1,1,10,1000\r\n2,0,0,0\r\n2,1,10,1000\r\n".utf8)
        // Left 4000 counts: past the last point (2500 → 20 kg) at the last segment's 10 kg per 1500 counts: 30 kg.
        // Centre +500 (the wrong sign for a loaded centre cell): −5 kg, below the first point, extrapolated too.
        let (_, kilograms) = board.decode([table, Self.line(number: 1, left: 4_000, centre: 500, right: -1_000)])
        #expect(kilograms == [30 - 5 + 10])
    }

    @Test("a data line before the calibration table is uncalibrated; nothing is emitted until the table is read")
    func beforeCalibration() {
        let (outcomes, kilograms) = board.decode([Self.fixtureLine, Self.identityTable, Self.fixtureLine])
        #expect(outcomes == [.rejected(.uncalibrated), .consumed, .samples(1)])
        #expect(kilograms == [60])
    }

    @Test("the sample number counts reports lost on the way, across its wrap at 65535; a step back loses none")
    func lostReports() {
        var decoder = GriptoniteMotherboard().makeDecoder()
        let lines = [Self.identityTable] + [1, 2, 4, 65_533, 65_534, 1].map {
            Self.line(number: UInt16($0), left: 10, centre: 0, right: 0)
        }
        for value in lines { _ = value.withUnsafeBytes { decoder.decode($0, hostMicros: 0) { _ in } } }
        // 2 → 4 loses 1; 4 → 65533 is a step back (the count restarted), none lost; 65534 → 1 loses 65535 and 0.
        #expect(decoder.lostReports == 1 + 2)
        #expect(TindeqProgressor().makeDecoder().lostReports == nil)
    }

    @Test("bytes that are not text, or a line longer than any the device sends, are unframed")
    func unframed() {
        let (outcomes, _) = board.decode([[0x05, 0x01, 0x0A], Array(repeating: UInt8(ascii: "A"), count: 70) + [0x0A]])
        #expect(outcomes == [.rejected(.unframed), .rejected(.unframed)])
    }

    @Test("C reads the table, S30 streams, an empty write stops; the name is exactly Motherboard")
    func commandsAndIdentity() {
        let profile = GriptoniteMotherboard()
        #expect(profile.encode(.readCalibration) == [0x43])
        #expect(profile.encode(.startMeasurement) == [0x53, 0x33, 0x30])
        #expect(profile.encode(.stopMeasurement) == [])
        #expect(profile.encode(.tare) == nil)
        #expect(profile.lifecycle.whenReady == [.readCalibration, .startMeasurement])
        #expect(profile.command(fromControlWrite: [0x53]) == .startMeasurement)
        #expect(profile.command(fromControlWrite: [UInt8]()) == .stopMeasurement)
        #expect(DeviceProfiles.matching(name: "Motherboard", serviceUUIDs: [])?.identifier == "motherboard")
        #expect(DeviceProfiles.matching(name: "Motherboard 2", serviceUUIDs: []) == nil)
        #expect(DeviceProfiles.matching(name: "Kilter Board", serviceUUIDs: [profile.serviceUUID]) == nil)
    }
}
