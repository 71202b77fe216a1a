/// The Frez Dyno (protocol: `docs/devices.md`, "Frez Dyno").
///
/// Data frames are exactly 74 bytes: `01 00`, then 9 × (`int32 LE` raw ADC ‖ `u32 LE` ms since START), at 250 Hz.
/// Forces need a per-device calibration coefficient: kg = coefficient × (ADC − tare), the tare being the mean ADC
/// of the first 100 samples after START (the Dyno must be unloaded then). The two public descriptions that agree
/// (grip_gains_companion's implementation, hangtime-grip-connect's protocol notes) are followed; hangtime's newest
/// code also accepts Progressor-style frames, which griptrack does not, until a capture shows a Dyno sending them.
public struct FrezDyno: DeviceProfile {
    /// The coefficient in kg per ADC count (`[device] calibration`); nil when not configured, and then every frame
    /// is rejected as `non_finite` (the daemon and replay refuse to start without it, saying where to set it).
    public let calibration: Double?

    public init(calibration: Double? = nil) {
        self.calibration = calibration
    }

    public static let identifier = "frez"
    public var name: String { "Frez Dyno" }
    public var identifier: String { Self.identifier }
    public var serviceUUID: String { "da8a6c41-154b-4b9a-9b00-2f84dfcebfe9" }
    public var namePrefix: String? { "Frez" }
    public var transport: DataTransport { .notify }
    /// Milliseconds since START, scaled to µs.
    public var clock: SampleClock { .device }
    public var dataCharacteristicUUID: String { "da8a6c42-154b-4b9a-9b00-2f84dfcebfe9" }
    public var controlCharacteristicUUID: String? { "da8a6c43-154b-4b9a-9b00-2f84dfcebfe9" }
    /// START when ready (the tare is taken from its first samples); STOP after a session gap; power off as sleep.
    public var lifecycle: DeviceLifecycle {
        DeviceLifecycle(whenReady: [.startMeasurement], whenIdle: [.stopMeasurement], sleep: .sleep)
    }

    /// A dynamometer like the Progressor: rated to 150 kg or so; a tared cell reads a little below zero.
    static let measurementRangeKg: ClosedRange<Float> = -10...200
    public var measurementRangeKg: ClosedRange<Float> { Self.measurementRangeKg }
    static let maxBelievableKgPerSecond: Float = 10_000
    static let samplesPerFrame = 9
    static let frameLength = 2 + 8 * samplesPerFrame
    /// Samples averaged into the tare after START (0.4 s at 250 Hz).
    static let tareSamples = 100

    private static let commands: [(DeviceCommand, [UInt8])] = [
        (.startMeasurement, [0x01, 0x00]), (.stopMeasurement, [0x02, 0x00]), (.sleep, [0xFF, 0x00]),
    ]

    public func encode(_ command: DeviceCommand) -> [UInt8]? {
        Self.commands.first { $0.0 == command }?.1
    }

    public func command(fromControlWrite bytes: some Collection<UInt8>) -> DeviceCommand? {
        Self.commands.first { $0.1.elementsEqual(bytes) }?.0
    }

    public func calibrated(_ coefficient: Double?) -> any DeviceProfile { FrezDyno(calibration: coefficient) }
    public var lacksCalibration: Bool { calibration == nil }

    public func makeDecoder() -> FrezDecoder { FrezDecoder(coefficient: calibration.map(Float.init) ?? .nan) }

    public func looksLikeDataFrame(_ bytes: some Collection<UInt8>) -> Bool {
        var iterator = bytes.makeIterator()
        return bytes.count == Self.frameLength && iterator.next() == 0x01 && iterator.next() == 0x00
    }
}

/// Stateful decoder for one Frez Dyno stream: tare from the first samples after START, then calibrated forces.
public struct FrezDecoder: FrameDecoder {
    /// ADC sum and count while the tare is being taken; the tare once it is.
    private struct Tare {
        var sum: Int64 = 0
        var count = 0
        var value: Float?

        /// Takes one sample's ADC into account; returns the tare it is measured against: the running mean while
        /// the tare is being taken (so the first 0.4 s read about zero, as the unloaded Dyno does), then the tare.
        @inline(__always)
        mutating func apply(_ adc: Int32) -> Float {
            if let value { return value }
            sum += Int64(adc)
            count += 1
            let mean = Float(Double(sum) / Double(count))
            if count == FrezDyno.tareSamples { value = mean }
            return mean
        }
    }

    private let coefficient: Float
    private var tare = Tare()
    /// The last sample's device ms, to refuse a repeated or stale frame.
    private var lastMillis: UInt32?
    private var plausibility = PlausibilityCheck(
        rangeKg: FrezDyno.measurementRangeKg, maxKgPerSecond: FrezDyno.maxBelievableKgPerSecond)

    init(coefficient: Float) {
        self.coefficient = coefficient
    }

    public mutating func noteCommandSent(_ command: DeviceCommand) {
        // Device time restarts at START, and the Dyno is unloaded then: a new tare.
        if command == .startMeasurement {
            tare = Tare()
            lastMillis = nil
            plausibility.restart()
        }
    }

    // HOT PATH: no allocation, lock, syscall or log.
    public mutating func decode(
        _ frame: UnsafeRawBufferPointer, hostMicros: Int64, emit: (RawSample) -> Void
    ) -> FrameOutcome {
        guard frame.count >= 2 else { return .rejected(.short) }
        guard frame[0] == 0x01, frame[1] == 0x00 else { return .rejected(.unknownCode) }
        guard frame.count == FrezDyno.frameLength else { return .rejected(.lengthMismatch) }
        // Time only moves forward: a frame starting at or before the last one's end is a repeat or stale.
        var previous = lastMillis
        for index in 0..<FrezDyno.samplesPerFrame {
            let millis = Self.millis(in: frame, at: index)
            if let previous, millis <= previous { return .rejected(.duplicate) }
            previous = millis
        }
        // Checked with the tare as it evolves over the frame, then emitted from the same starting tare.
        var trial = tare
        var earlier: RawSample?
        for index in 0..<FrezDyno.samplesPerFrame {
            let sample = Self.sample(at: index, in: frame, coefficient: coefficient, tare: &trial)
            if let reason = plausibility.rejection(of: sample, after: earlier) { return .rejected(reason) }
            earlier = sample
        }
        for index in 0..<FrezDyno.samplesPerFrame {
            emit(Self.sample(at: index, in: frame, coefficient: coefficient, tare: &tare))
        }
        lastMillis = previous
        if let last = earlier { plausibility.accept(last) }
        return .samples(FrezDyno.samplesPerFrame)
    }

    @inline(__always)
    private static func sample(
        at index: Int, in frame: UnsafeRawBufferPointer, coefficient: Float, tare: inout Tare
    ) -> RawSample {
        let adc = Int32(littleEndian: frame.loadUnaligned(fromByteOffset: 2 + 8 * index, as: Int32.self))
        let zero = tare.apply(adc)
        return RawSample(deviceMicros: millis(in: frame, at: index) &* 1_000, kilograms: coefficient * (Float(adc) - zero))
    }

    @inline(__always)
    private static func millis(in frame: UnsafeRawBufferPointer, at index: Int) -> UInt32 {
        UInt32(littleEndian: frame.loadUnaligned(fromByteOffset: 6 + 8 * index, as: UInt32.self))
    }
}
