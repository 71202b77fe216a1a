/// The Tindeq Progressor, the reference device (protocol: `docs/devices.md`), and the open-hardware clones that
/// speak its protocol (Hangman, Crimpdeq, Mito, BigBanger: `ProgressorClone`, docs/devices.md "Progressor clones"):
/// any name starting `Progressor` (the bare one too) matches without the service in the advertisement; commands stay
/// one byte (BigBanger ignores the two-byte form); device time may start anywhere (Mito: µs since boot); Crimpdeq's
/// codes 0x05/0x06 are known and ignored; a device without the control point (Mito) streams once subscribed.
///
/// Data frames are TLV: `code u8 | length u8 | payload`. Weight frames (code 0x01) carry N ≥ 1 samples of
/// `float32 LE kg ‖ u32 LE µs since START`; 0x02/0x03 (RFD modes) use the same sample layout; 0x00 is a command
/// response whose meaning depends on the last command; 0x04 warns of low power.
public struct TindeqProgressor: DeviceProfile {
    public init() {}

    public var name: String { "Tindeq Progressor" }
    public var identifier: String { "progressor" }
    public var serviceUUID: String { "7e4e1701-1ea6-40c9-9dcc-13d34ffead57" }
    public var dataCharacteristicUUID: String { "7e4e1702-1ea6-40c9-9dcc-13d34ffead57" }
    public var controlCharacteristicUUID: String? { "7e4e1703-1ea6-40c9-9dcc-13d34ffead57" }
    public var namePrefix: String? { "Progressor" }
    public var transport: DataTransport { .notify }
    /// Every sample carries the device's µs since START.
    public var clock: SampleClock { .device }
    /// START (so the device clock restarts as the ring sees it), then the battery voltage, again every
    /// `battery_interval`; STOP after a session gap, then SLEEP when configured.
    public var lifecycle: DeviceLifecycle {
        DeviceLifecycle(
            whenReady: [.startMeasurement, .battery], periodic: [.battery], whenIdle: [.stopMeasurement], sleep: .sleep)
    }

    /// The Progressor is rated to 150 kg; a tared cell reads a little below zero when unloaded or pushed. −10…200 kg
    /// leaves room for overload readings of a real pull without admitting values no pull makes (`docs/devices.md`,
    /// "Plausibility").
    public static let measurementRangeKg: ClosedRange<Float> = -10...200
    public var measurementRangeKg: ClosedRange<Float> { Self.measurementRangeKg }
    /// The fastest force change a person produces is a release, about 60 kg → 0 in ~20 ms (3 000 kg/s); 10 000 kg/s
    /// leaves margin for a knock on the device.
    public static let maxBelievableKgPerSecond: Float = 10_000

    /// Control-point opcodes. 0x71–0x76 (calibration, reboot) are deliberately absent: griptrack never sends them.
    enum Opcode: UInt8 {
        case tare = 0x64, startWeight = 0x65, stopWeight = 0x66
        case sleep = 0x6E, battery = 0x6F, identifier = 0x70, version = 0x6B
    }

    /// Response codes in byte 0 of a data frame. 0x05 and 0x06 are Crimpdeq's answers to its calibration commands
    /// (f32 factor; f32 raw and f32 kg), which griptrack never sends: known, and ignored.
    enum ResponseCode: UInt8 {
        case commandResponse = 0x00, weight = 0x01, rfdPeak = 0x02, rfdPeakSeries = 0x03, lowPowerWarning = 0x04
        case calibrationFactor = 0x05, calibrationPoint = 0x06
    }

    private static let opcodes: [(DeviceCommand, Opcode)] = [
        (.tare, .tare), (.startMeasurement, .startWeight), (.stopMeasurement, .stopWeight),
        (.battery, .battery), (.version, .version), (.identifier, .identifier), (.sleep, .sleep),
    ]

    /// The vendor's form: one opcode byte, written as a Write Request.
    public func encode(_ command: DeviceCommand) -> [UInt8]? {
        Self.opcodes.first { $0.0 == command }.map { [$0.1.rawValue] }
    }

    /// Accepts both encodings seen in the wild: `[op]` and `[op, 0x00]` (TLV with length 0).
    public func command(fromControlWrite bytes: some Collection<UInt8>) -> DeviceCommand? {
        guard let op = bytes.first, bytes.count == 1 || (bytes.count == 2 && bytes.dropFirst().first == 0) else {
            return nil
        }
        return Self.opcodes.first { $0.1.rawValue == op }?.0
    }

    public func makeDecoder() -> ProgressorDecoder { ProgressorDecoder() }

    /// Weight frame shape: code 0x01, L a non-zero multiple of 8 that matches the bytes received.
    public func looksLikeDataFrame(_ bytes: some Collection<UInt8>) -> Bool {
        var iterator = bytes.makeIterator()
        guard iterator.next() == ResponseCode.weight.rawValue, let length = iterator.next() else { return false }
        return length > 0 && length % 8 == 0 && Int(length) + 2 == bytes.count
    }
}

/// Stateful decoder for one Progressor stream.
public struct ProgressorDecoder: FrameDecoder {
    private var lastCommand: DeviceCommand?
    /// First and last device time of the previous sample frame, to spot a repeated notification.
    private var previousFrameSpan: (first: UInt32, last: UInt32)?
    private var plausibility = PlausibilityCheck(
        rangeKg: TindeqProgressor.measurementRangeKg, maxKgPerSecond: TindeqProgressor.maxBelievableKgPerSecond)

    public init() {}

    public mutating func noteCommandSent(_ command: DeviceCommand) {
        lastCommand = command
        // Device time restarts at START, so a frame after it can legitimately repeat an earlier span.
        if command == .startMeasurement {
            previousFrameSpan = nil
            plausibility.restart()
        }
    }

    // HOT PATH: no allocation, lock, syscall or log (except for rare command responses, which build a value).
    public mutating func decode(
        _ frame: UnsafeRawBufferPointer, hostMicros: Int64, emit: (RawSample) -> Void
    ) -> FrameOutcome {
        guard frame.count >= 2 else { return .rejected(.short) }
        let code = frame[0]
        let length = Int(frame[1])
        guard frame.count == 2 + length else { return .rejected(.lengthMismatch) }
        switch TindeqProgressor.ResponseCode(rawValue: code) {
        case .weight, .rfdPeak, .rfdPeakSeries:
            return decodeSamples(frame, payloadLength: length, emit: emit)
        case .commandResponse:
            return .event(commandResponse(frame, payloadLength: length))
        case .lowPowerWarning:
            return .event(.lowPowerWarning)
        case .calibrationFactor, .calibrationPoint:
            // A clone's vendor answer (Crimpdeq), to another client's command: decoded, nothing to report.
            return .consumed
        case nil:
            return .rejected(.unknownCode)
        }
    }

    private mutating func decodeSamples(
        _ frame: UnsafeRawBufferPointer, payloadLength: Int, emit: (RawSample) -> Void
    ) -> FrameOutcome {
        guard payloadLength > 0, payloadLength % 8 == 0 else { return .rejected(.notMultipleOf8) }
        let count = payloadLength / 8
        let span = (first: Self.sample(in: frame, at: 0).deviceMicros,
                    last: Self.sample(in: frame, at: count - 1).deviceMicros)
        if let previous = previousFrameSpan, previous == span { return .rejected(.duplicate) }
        // Validate the whole frame before emitting anything, so a rejected frame contributes no samples.
        var earlier: RawSample?
        for index in 0..<count {
            let sample = Self.sample(in: frame, at: index)
            if let reason = plausibility.rejection(of: sample, after: earlier) { return .rejected(reason) }
            earlier = sample
        }
        previousFrameSpan = span
        for index in 0..<count { emit(Self.sample(in: frame, at: index)) }
        if let last = earlier { plausibility.accept(last) }
        return .samples(count)
    }

    @inline(__always)
    private static func sample(in frame: UnsafeRawBufferPointer, at index: Int) -> RawSample {
        let offset = 2 + 8 * index
        let bits = UInt32(littleEndian: frame.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
        let micros = UInt32(littleEndian: frame.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self))
        return RawSample(deviceMicros: micros, kilograms: Float(bitPattern: bits))
    }

    private func commandResponse(_ frame: UnsafeRawBufferPointer, payloadLength: Int) -> DeviceEvent {
        let payload = frame[2..<(2 + payloadLength)]
        switch lastCommand {
        case .battery? where payloadLength >= 4:
            return .batteryMillivolts(UInt32(littleEndian: frame.loadUnaligned(fromByteOffset: 2, as: UInt32.self)))
        case .version?:
            return .firmwareVersion(String(decoding: payload.prefix { $0 != 0 }, as: UTF8.self))
        case .identifier? where payloadLength <= 8:
            // Trailing zero bytes may be omitted, so this is a little-endian integer of up to 8 bytes.
            let value = payload.reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            return .deviceIdentifier(value)
        default:
            return .commandResponse(Array(payload))
        }
    }
}
