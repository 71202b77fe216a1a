/// The Griptonite Motherboard, a hangboard with left, centre and right load cells (protocol: `docs/devices.md`,
/// "Griptonite Motherboard").
///
/// ASCII over the Nordic UART: the host writes `C` for the device's calibration table (16 lines
/// `sensor,point,mass,adc`), then `S30` to stream 30 reports a second; every report is a line of 32 hex digits
/// (16 bytes: u16 LE sample number, u16 LE battery charge, four int24 LE ADC readings: left, centre, right, unused),
/// CRLF-terminated, cut into notifications of at most 20 bytes. Each cell's reading becomes kilograms through the
/// device's own table (piecewise linear, extrapolated beyond its ends; centre and right read negative under load), and
/// the sample is their total; the three cells are kept beside it (``MotherboardDecoder/lastCells``). Sources:
/// hangtime-grip-connect's `motherboard.model.ts` and its tests, and jtvjan's grippynotes.
public struct GriptoniteMotherboard: DeviceProfile {
    public init() {}

    public var name: String { "Griptonite Motherboard" }
    public var identifier: String { "motherboard" }
    /// The Nordic UART service, shared with LED-only boards (Aurora's), so the name decides.
    public var serviceUUID: String { "6e400001-b5a3-f393-e0a9-e50e24dcca9e" }
    /// NUS TX (grippynotes' "TX"): all device output.
    public var dataCharacteristicUUID: String { "6e400003-b5a3-f393-e0a9-e50e24dcca9e" }
    /// NUS RX: commands.
    public var controlCharacteristicUUID: String? { "6e400002-b5a3-f393-e0a9-e50e24dcca9e" }
    public var namePrefix: String? { nil }
    /// Both sources check the GAP name is exactly this.
    public var exactNames: [String] { ["Motherboard"] }
    public var dataServiceIsShared: Bool { true }
    public var transport: DataTransport { .notify }
    public var clock: SampleClock { .host(nominalHz: Self.nominalHz) }
    /// Notifications are on before any write (a write before them hangs the device, grippynotes): the calibration
    /// table, then the stream; any command stops it (an empty write, as hangtime sends).
    public var lifecycle: DeviceLifecycle {
        DeviceLifecycle(whenReady: [.readCalibration, .startMeasurement], whenIdle: [.stopMeasurement])
    }

    /// The rate `S30` asks for.
    static let nominalHz = 30.0
    /// The total of three cells under a person hanging with added weight; a tared cell reads a little below zero.
    static let measurementRangeKg: ClosedRange<Float> = -20...300
    public var measurementRangeKg: ClosedRange<Float> { Self.measurementRangeKg }
    static let maxBelievableKgPerSecond: Float = 10_000

    private static let commands: [(DeviceCommand, [UInt8])] = [
        (.readCalibration, Array("C".utf8)), (.startMeasurement, Array("S30".utf8)), (.stopMeasurement, []),
    ]

    public func encode(_ command: DeviceCommand) -> [UInt8]? {
        Self.commands.first { $0.0 == command }?.1
    }

    /// `S` alone reuses the last rate: a start too.
    public func command(fromControlWrite bytes: some Collection<UInt8>) -> DeviceCommand? {
        if bytes.first == UInt8(ascii: "S") { return .startMeasurement }
        return Self.commands.first { $0.1.elementsEqual(bytes) }?.0
    }

    public func makeDecoder() -> MotherboardDecoder { MotherboardDecoder() }

    /// Printable ASCII, CR and LF only.
    public func looksLikeDataFrame(_ bytes: some Collection<UInt8>) -> Bool {
        !bytes.isEmpty && bytes.allSatisfy { ($0 >= 0x20 && $0 < 0x7F) || $0 == 0x0D || $0 == 0x0A }
    }
}

/// One Motherboard stream: reassembles its lines, keeps the device's calibration table, converts the cells, counts
/// reports lost by the sample number.
///
/// A notification gives `samples(n)` for the n data lines that end in it (0 for pieces of lines and for responses:
/// calibration lines, `Stream:`, `Error …`); it is rejected whole, emitting nothing, for a line longer than any the
/// device sends or with bytes that are not text (`unframed`), or a data line before the calibration table has two
/// points for each of the three cells (`uncalibrated`). All state is inline (no heap): the pipeline copies the
/// decoder for each notification.
public struct MotherboardDecoder: FrameDecoder {
    /// The longest line kept: a data line is 32 hex digits and CR, a calibration line about 20 characters.
    static let lineCapacity = 64

    /// Line reassembly, calibration table and sample numbering: everything a notification's bytes change.
    fileprivate struct Parse: Sendable {
        var line = SIMD64<UInt8>()
        var length = 0
        /// The current line outgrew ``lineCapacity`` (or held a byte that is not text): dropped up to its LF.
        var discarding = false
        /// `sensor · 4 + point` → mass (kg) and ADC; `present` has a bit per entry read.
        var masses = SIMD16<Float>()
        var adcs = SIMD16<Int32>()
        var present: UInt16 = 0
        var lastNumber: UInt16?
        var lostReports = 0
        var cells = SIMD4<Float>()
    }

    private var parse = Parse()
    private var clock = HostStampedClock(nominalHz: GriptoniteMotherboard.nominalHz)
    private var plausibility = PlausibilityCheck(
        rangeKg: GriptoniteMotherboard.measurementRangeKg, maxKgPerSecond: GriptoniteMotherboard.maxBelievableKgPerSecond)

    public init() {}

    /// Reports the sample number says were sent and never arrived, since the decoder began.
    public var lostReports: Int? { parse.lostReports }
    /// The last sample's cells (kg): left, centre, right, and their total in the fourth lane.
    public var lastCells: SIMD4<Float> { parse.cells }
    /// Whether the calibration table has at least two points for each of the three cells.
    public var isCalibrated: Bool { parse.isCalibrated }

    public mutating func noteCommandSent(_ command: DeviceCommand) {
        if command == .startMeasurement {
            clock.restart()
            plausibility.restart()
            parse.lastNumber = nil
        }
    }

    // HOT PATH: no allocation, lock, syscall or log.
    public mutating func decode(
        _ frame: UnsafeRawBufferPointer, hostMicros: Int64, emit: (RawSample) -> Void
    ) -> FrameOutcome {
        // The stream moves on whatever the outcome; the later passes replay the same bytes from the same state.
        let start = parse
        var count = 0
        var rejection: FrameRejection?
        Self.scan(frame, parse: &parse, rejection: &rejection) { _ in count += 1 }
        if let rejection { return .rejected(rejection) }
        guard count > 0 else { return .consumed }

        var timing = clock
        let times = timing.place(count: count, arrivedAt: hostMicros)
        var index: UInt32 = 0
        var earlier: RawSample?
        var refused: FrameRejection?
        var again = start
        var ignored: FrameRejection?
        Self.scan(frame, parse: &again, rejection: &ignored) { cells in
            let sample = RawSample(deviceMicros: times.firstMicros &+ index &* times.stepMicros, kilograms: cells[3])
            index &+= 1
            if refused == nil { refused = plausibility.rejection(of: sample, after: earlier) }
            earlier = sample
        }
        if let refused {
            parse.cells = start.cells
            return .rejected(refused)
        }
        clock = timing
        index = 0
        again = start
        Self.scan(frame, parse: &again, rejection: &ignored) { cells in
            emit(RawSample(
                deviceMicros: times.firstMicros &+ index &* times.stepMicros, kilograms: cells[3],
                cells: CellForces(left: cells[0], centre: cells[1], right: cells[2])))
            index &+= 1
        }
        if let last = earlier { plausibility.accept(last) }
        return .samples(count)
    }

    /// Feeds the bytes through line reassembly: `sample` gets each data line's cells (left, centre, right, total).
    @inline(__always)
    private static func scan(
        _ bytes: UnsafeRawBufferPointer, parse: inout Parse, rejection: inout FrameRejection?,
        sample: (SIMD4<Float>) -> Void
    ) {
        for byte in bytes {
            if byte == 0x0A {
                if !parse.discarding, let cells = parse.endLine(rejection: &rejection) {
                    sample(cells)
                }
                parse.length = 0
                parse.discarding = false
                continue
            }
            // Not the Motherboard's text, or a line longer than it prints: refused here, dropped up to its LF (where
            // every byte that is not text is refused again).
            let text = (byte >= 0x20 && byte < 0x7F) || byte == 0x0D
            guard text, parse.discarding || parse.length < MotherboardDecoder.lineCapacity else {
                parse.discarding = true
                rejection = rejection ?? .unframed
                continue
            }
            guard !parse.discarding else { continue }
            parse.line[parse.length] = byte
            parse.length += 1
        }
    }
}

extension MotherboardDecoder.Parse {
    var isCalibrated: Bool { (0..<3).allSatisfy { pointCount(sensor: $0) >= 2 } }

    /// Points read for a sensor (the table's first entries in order: the device prints points 0, 1, 2, 3).
    func pointCount(sensor: Int) -> Int {
        var count = 0
        while count < 4, present & (1 << (sensor * 4 + count)) != 0 { count += 1 }
        return count
    }

    /// The line just ended (without its CR): a data line's cells, or nil for a response (a calibration line is
    /// kept on the way).
    mutating func endLine(rejection: inout FrameRejection?) -> SIMD4<Float>? {
        var end = length
        if end > 0, line[end - 1] == 0x0D { end -= 1 }
        if end == 32, let cells = dataLine(rejection: &rejection) { return cells }
        calibrationLine(end)
        return nil
    }

    /// 32 hex digits: the cells, converted; nil (and `uncalibrated`) before the table is read, nil for a line that
    /// is not all hex digits (a response).
    private mutating func dataLine(rejection: inout FrameRejection?) -> SIMD4<Float>? {
        var bytes = SIMD16<UInt8>()
        for index in 0..<16 {
            guard let high = Self.hexValue(line[2 * index]), let low = Self.hexValue(line[2 * index + 1]) else { return nil }
            bytes[index] = high << 4 | low
        }
        guard isCalibrated else {
            rejection = rejection ?? .uncalibrated
            return nil
        }
        let number = UInt16(bytes[0]) | UInt16(bytes[1]) << 8
        if let last = lastNumber {
            // The counter wraps at 65535; a step back (the device restarted its count) loses nothing.
            let gap = number &- last &- 1
            if gap < 0x8000 { lostReports += Int(gap) }
        }
        lastNumber = number
        var result = SIMD4<Float>()
        for cell in 0..<3 {
            let offset = 4 + 3 * cell
            let unsigned = Int32(bytes[offset]) | Int32(bytes[offset + 1]) << 8 | Int32(bytes[offset + 2]) << 16
            // Two's complement (hangtime's ≥ 0x7FFFFF reads 0x7FFFFF as −1, an off-by-one).
            let raw = unsigned >= 0x80_0000 ? unsigned - 0x100_0000 : unsigned
            // Centre and right read negative under load: their sign is turned before the table is applied.
            result[cell] = mass(sensor: cell, adc: Float(cell == 0 ? raw : -raw))
        }
        result[3] = result[0] + result[1] + result[2]
        cells = result
        return result
    }

    /// The sensor's mass for an ADC reading: piecewise linear through its points, and beyond the first or last
    /// point along the nearest segment (hangtime returns 0 above the table, which would read a heavy hang as none).
    func mass(sensor: Int, adc x: Float) -> Float {
        let count = pointCount(sensor: sensor)
        let base = sensor * 4
        var upper = 1
        while upper < count - 1, x >= Float(adcs[base + upper]) { upper += 1 }
        let a0 = Float(adcs[base + upper - 1]), a1 = Float(adcs[base + upper])
        let m0 = masses[base + upper - 1], m1 = masses[base + upper]
        guard a1 != a0 else { return m0 }
        return m0 + (x - a0) / (a1 - a0) * (m1 - m0)
    }

    /// `sensor,point,mass,adc` with exactly three commas: kept when sensor and point are 0…3; anything else is a
    /// response griptrack does not need (`Stream: 30`, `Error VAL`, a serial number).
    private mutating func calibrationLine(_ end: Int) {
        var fields = (sensor: 0.0, point: 0.0, mass: 0.0, adc: 0.0)
        var field = 0
        var start = 0
        for index in 0...end where index == end || line[index] == UInt8(ascii: ",") {
            guard let value = Self.decimal(line, from: start, to: index) else { return }
            switch field {
            case 0: fields.sensor = value
            case 1: fields.point = value
            case 2: fields.mass = value
            case 3: fields.adc = value
            default: return
            }
            field += 1
            start = index + 1
        }
        guard field == 4, fields.sensor >= 0, fields.sensor < 4, fields.point >= 0, fields.point < 4,
              fields.sensor == fields.sensor.rounded(), fields.point == fields.point.rounded(),
              abs(fields.adc) < 0x100_0000
        else { return }
        let slot = Int(fields.sensor) * 4 + Int(fields.point)
        masses[slot] = Float(fields.mass)
        adcs[slot] = Int32(fields.adc)
        present |= 1 << slot
    }

    /// A decimal number (optional sign, digits, optional fraction) in `bytes[from..<to]`, or nil.
    private static func decimal(_ bytes: SIMD64<UInt8>, from: Int, to: Int) -> Double? {
        var index = from
        var negative = false
        if index < to, bytes[index] == UInt8(ascii: "-") {
            negative = true
            index += 1
        }
        var value = 0.0
        var digits = 0
        var scale = 0.0
        while index < to {
            let byte = bytes[index]
            if byte == UInt8(ascii: "."), scale == 0 {
                scale = 1
            } else if byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
                value = value * 10 + Double(byte - UInt8(ascii: "0"))
                if scale > 0 { scale *= 10 }
                digits += 1
            } else {
                return nil
            }
            index += 1
        }
        guard digits > 0, digits <= 12 else { return nil }
        if scale > 0 { value /= scale }
        return negative ? -value : value
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        default: nil
        }
    }
}
