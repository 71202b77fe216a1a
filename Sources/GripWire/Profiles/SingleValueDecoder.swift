/// Decoder for devices that send one weight per notification (or advertisement) and no time: the Entralpi, SIG
/// weight scales, the WH-C06.
public struct SingleValueDecoder: FrameDecoder {
    /// How the one value is laid out.
    public enum Layout: Sendable {
        /// Two bytes: big-endian u16 hundredths of a kilogram (Entralpi).
        case bigEndianHundredths
        /// SIG Weight Measurement 0x2A9D: flags, u16 LE weight, optional fields.
        case weightMeasurement
        /// WH-C06 manufacturer data: bytes 10–11 signed BE hundredths, byte 14's low nibble the unit.
        case whc06ManufacturerData
    }

    private let layout: Layout
    private var clock: HostStampedClock
    private var plausibility: PlausibilityCheck

    public init(layout: Layout, nominalHz: Double, rangeKg: ClosedRange<Float>, maxKgPerSecond: Float) {
        self.layout = layout
        clock = HostStampedClock(nominalHz: nominalHz)
        plausibility = PlausibilityCheck(rangeKg: rangeKg, maxKgPerSecond: maxKgPerSecond)
    }

    /// These devices take no commands; a START seen in a capture would still restart the grid.
    public mutating func noteCommandSent(_ command: DeviceCommand) {
        if command == .startMeasurement {
            clock.restart()
            plausibility.restart()
        }
    }

    // HOT PATH: no allocation, lock, syscall or log.
    public mutating func decode(
        _ frame: UnsafeRawBufferPointer, hostMicros: Int64, emit: (RawSample) -> Void
    ) -> FrameOutcome {
        let kilograms: Float
        switch layout {
        case .bigEndianHundredths:
            guard frame.count >= 2 else { return .rejected(.short) }
            guard frame.count == 2 else { return .rejected(.lengthMismatch) }
            kilograms = Float(UInt16(frame[0]) << 8 | UInt16(frame[1])) / 100
        case .weightMeasurement:
            guard frame.count >= 3 else { return .rejected(.short) }
            let flags = frame[0]
            guard let length = Self.weightMeasurementLength(flags: flags) else { return .rejected(.unknownCode) }
            guard frame.count == length else { return .rejected(.lengthMismatch) }
            let raw = UInt16(frame[1]) | UInt16(frame[2]) << 8
            // "Measurement unsuccessful": the scale says it has no value, which is not a force.
            guard raw != 0xFFFF else { return .rejected(.outOfRange) }
            kilograms = flags & 0x01 != 0 ? Float(raw) * 0.01 * 0.453_592 : Float(raw) * 0.005
        case .whc06ManufacturerData:
            guard frame.count >= 15 else { return .rejected(.short) }
            guard let perUnit = WeihengWHC06.kilogramsPerUnit(frame[14] & 0x0F) else { return .rejected(.unknownCode) }
            let raw = Int16(bitPattern: UInt16(frame[10]) << 8 | UInt16(frame[11]))
            kilograms = Float(raw) / 100 * perUnit
        }
        var timing = clock
        let times = timing.place(count: 1, arrivedAt: hostMicros)
        let sample = RawSample(deviceMicros: times.firstMicros, kilograms: kilograms)
        if let reason = plausibility.rejection(of: sample, after: nil) { return .rejected(reason) }
        clock = timing
        plausibility.accept(sample)
        emit(sample)
        return .samples(1)
    }

    /// The length a Weight Measurement with these flags has, or nil when a reserved bit (4–7) is set.
    static func weightMeasurementLength(flags: UInt8) -> Int? {
        guard flags & 0xF0 == 0 else { return nil }
        var length = 3
        if flags & 0x02 != 0 { length += 7 }  // date-time
        if flags & 0x04 != 0 { length += 1 }  // user id
        if flags & 0x08 != 0 { length += 4 }  // BMI and height
        return length
    }
}
