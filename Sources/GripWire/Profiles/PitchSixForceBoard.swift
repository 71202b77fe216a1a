/// The PitchSix Force Board (protocol: `docs/devices.md`, "PitchSix Force Board").
///
/// Data frames: `count u16 BE | count × 3-byte samples`. A sample reads `b0·32768 + b1·256 + b2` in pounds — an odd
/// multiplier, but the two public clients (hangtime-grip-connect, grip_gains_companion) agree on it and the vendor's
/// PDF was not available to check, so the majority is followed. No device time: samples are host-stamped at the
/// 80 Hz both clients assume. Commands go to the Device Mode characteristic, which sits in a second service.
public struct PitchSixForceBoard: DeviceProfile {
    public init() {}

    public var name: String { "PitchSix Force Board" }
    public var identifier: String { "forceboard" }
    public var serviceUUID: String { "9a88d67f-8df2-4afe-9e0d-c2bbbe773dd0" }
    public var namePrefix: String? { "Force Board" }
    public var transport: DataTransport { .notify }
    public var clock: SampleClock { .host(nominalHz: Self.nominalHz) }
    public var dataCharacteristicUUID: String { "9a88d682-8df2-4afe-9e0d-c2bbbe773dd0" }
    /// Device Mode, in service 467a8516-6e39-11eb-9439-0242ac130002.
    public var controlCharacteristicUUID: String? { "467a8517-6e39-11eb-9439-0242ac130002" }
    public var controlSharesDataService: Bool { false }
    /// Streaming mode when ready; idle mode after a session gap. No battery command (battery is the standard
    /// Battery service, which griptrack does not read yet).
    public var lifecycle: DeviceLifecycle { DeviceLifecycle(whenReady: [.startMeasurement], whenIdle: [.stopMeasurement]) }

    static let nominalHz = 80.0
    static let kilogramsPerPound: Float = 0.453_592
    /// The board is sold for hangs and pulls with body weight and added load; 300 kg is above any of them and far
    /// below what a corrupted 3-byte value reads (up to 8.4 million lb).
    static let measurementRangeKg: ClosedRange<Float> = 0...300
    public var measurementRangeKg: ClosedRange<Float> { Self.measurementRangeKg }
    static let maxBelievableKgPerSecond: Float = 10_000

    /// Device Mode values: 0x04 stream, 0x05 tare, 0x07 idle (0x06 "quick start", streaming only above a threshold,
    /// is not used: it would cut the baseline the segmenter needs).
    private static let modes: [(DeviceCommand, UInt8)] = [(.startMeasurement, 0x04), (.tare, 0x05), (.stopMeasurement, 0x07)]

    public func encode(_ command: DeviceCommand) -> [UInt8]? {
        Self.modes.first { $0.0 == command }.map { [$0.1] }
    }

    public func command(fromControlWrite bytes: some Collection<UInt8>) -> DeviceCommand? {
        guard bytes.count == 1, let mode = bytes.first else { return nil }
        return Self.modes.first { $0.1 == mode }?.0
    }

    public func makeDecoder() -> ForceBoardDecoder { ForceBoardDecoder() }

    /// A count ≥ 1 that matches the bytes received.
    public func looksLikeDataFrame(_ bytes: some Collection<UInt8>) -> Bool {
        var iterator = bytes.makeIterator()
        guard let high = iterator.next(), let low = iterator.next() else { return false }
        let count = Int(high) << 8 | Int(low)
        return count > 0 && 2 + 3 * count == bytes.count
    }
}

/// Stateful decoder for one Force Board stream.
public struct ForceBoardDecoder: FrameDecoder {
    private var clock = HostStampedClock(nominalHz: PitchSixForceBoard.nominalHz)
    private var plausibility = PlausibilityCheck(
        rangeKg: PitchSixForceBoard.measurementRangeKg, maxKgPerSecond: PitchSixForceBoard.maxBelievableKgPerSecond)

    public init() {}

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
        guard frame.count >= 2 else { return .rejected(.short) }
        let count = Int(frame[0]) << 8 | Int(frame[1])
        guard count > 0, frame.count == 2 + 3 * count else { return .rejected(.lengthMismatch) }
        // The clock advances only if the frame is accepted, so a rejected frame leaves no mark on the timing.
        var timing = clock
        let times = timing.place(count: count, arrivedAt: hostMicros)
        var earlier: RawSample?
        for index in 0..<count {
            let sample = Self.sample(in: frame, at: index, times: times)
            if let reason = plausibility.rejection(of: sample, after: earlier) { return .rejected(reason) }
            earlier = sample
        }
        clock = timing
        var last = RawSample(deviceMicros: 0, kilograms: 0)
        for index in 0..<count {
            last = Self.sample(in: frame, at: index, times: times)
            emit(last)
        }
        plausibility.accept(last)
        return .samples(count)
    }

    @inline(__always)
    private static func sample(
        in frame: UnsafeRawBufferPointer, at index: Int, times: (firstMicros: UInt32, stepMicros: UInt32)
    ) -> RawSample {
        let offset = 2 + 3 * index
        let pounds = Int(frame[offset]) * 32_768 + Int(frame[offset + 1]) * 256 + Int(frame[offset + 2])
        return RawSample(
            deviceMicros: times.firstMicros &+ UInt32(truncatingIfNeeded: index) &* times.stepMicros,
            kilograms: Float(pounds) * PitchSixForceBoard.kilogramsPerPound)
    }
}
