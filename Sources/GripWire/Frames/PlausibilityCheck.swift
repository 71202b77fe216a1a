/// The physical limits of one device, checked on every decoded sample before it can become a measurement.
///
/// A corrupted frame can carry any float: 3.4e38 kg, −5000 kg, or a value inside the range that jumps 150 kg in one
/// sample period. None of these is a force anyone applied, and once accepted they would become a peak, a recording
/// max and an RFD. Decoders embed one of these, so each profile states its own limits (`docs/devices.md`,
/// "Plausibility").
public struct PlausibilityCheck: Sendable {
    /// What the device can report, in kg (a tared load cell also reads slightly negative).
    public let rangeKg: ClosedRange<Float>
    /// The fastest change a hand or load cell produces, in kg per second.
    public let maxKgPerSecond: Float
    /// The last sample that passed, to judge the next step; nil after a restart of device time.
    private var previous: RawSample?

    /// Steps are judged over at least this long, so two samples with the same (or a 1 µs apart) time stamp may
    /// still differ by a believable amount: at 10 000 kg/s that is 100 kg.
    static let minimumStepMicros: Float = 10_000

    public init(rangeKg: ClosedRange<Float>, maxKgPerSecond: Float) {
        self.rangeKg = rangeKg
        self.maxKgPerSecond = maxKgPerSecond
    }

    /// Forgets the previous sample: device time restarted (START), so the next step has nothing to be judged
    /// against.
    public mutating func restart() { previous = nil }

    /// Why these samples cannot be measurements, or nil when all of them can. Checks them in order, each against
    /// the one before (the first against the last accepted sample); it remembers nothing until `accept` is called.
    ///
    /// - Important: HOT PATH: no allocation.
    @inline(__always)
    public func rejection(of sample: RawSample, after earlier: RawSample?) -> FrameRejection? {
        guard sample.kilograms.isFinite else { return .nonFinite }
        guard rangeKg.contains(sample.kilograms) else { return .outOfRange }
        guard let before = earlier ?? previous else { return nil }
        // Wrapping difference: the u32 device clock wraps every 71.6 minutes; a clock that went backwards gives a
        // huge interval, which lets the sample through (a time problem, not a force problem).
        let micros = max(Float(sample.deviceMicros &- before.deviceMicros), Self.minimumStepMicros)
        let step = abs(sample.kilograms - before.kilograms)
        return step > maxKgPerSecond * micros / 1_000_000 ? .implausibleStep : nil
    }

    /// Records the last sample of an accepted frame as the reference for the next step.
    public mutating func accept(_ sample: RawSample) { previous = sample }
}
