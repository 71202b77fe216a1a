/// The CTS500 and CTS-300 crane-scale dynamometers ("Jlyscales", Hunan Jinlian), sold as Tindeq look-alikes
/// (protocol: `docs/devices.md`, "CTS500 / CTS-300").
///
/// An HM-10-style transparent UART (`FFE0`, notify `FFE1`, write `FFE2`) carrying checksummed frames that start with
/// `05` and end with the sum of the bytes before them, mod 256. The host writes 6-byte commands `05 op p0 p1 p2 cs`,
/// which the scale echoes byte for byte; typed answers are 7 bytes `05 80 op d0 d1 d2 cs`; weights are 7 bytes
/// `05 xx w3 w2 w1 w0 cs`, an unsigned big-endian count of 10 g. Frames are split across notifications and several
/// share one, so the decoder reassembles the stream. No device time: samples are host-stamped. Sources:
/// hangtime-grip-connect's `cts500.model.ts` and grip_gains_companion's `CTS500Service.swift`, whose parser mirrors
/// it; which rate the scale uploads at, and how (or whether) it sends a negative weight, no source says.
public struct CTS500: DeviceProfile {
    public init() {}

    public var name: String { "CTS500 / CTS-300" }
    public var identifier: String { "cts500" }
    public var serviceUUID: String { sigUUID("ffe0") }
    public var dataCharacteristicUUID: String { sigUUID("ffe1") }
    public var controlCharacteristicUUID: String? { sigUUID("ffe2") }
    /// Both clients match these two names exactly; `FFE0` is any HM-10 module's, so it identifies nothing.
    public var namePrefix: String? { nil }
    public var exactNames: [String] { ["CTS500", "CTS-300"] }
    public var dataServiceIsShared: Bool { true }
    public var transport: DataTransport { .notify }
    public var clock: SampleClock { .host(nominalHz: Self.nominalHz) }
    /// The A/D rate (80 Hz), the battery voltage (answered before the weights start), then START (auto-upload); the
    /// battery again every `battery_interval`;
    /// STOP after a session gap. The scale has no sleep command griptrack sends (a shutdown timer exists; unused).
    public var lifecycle: DeviceLifecycle {
        DeviceLifecycle(
            whenReady: [.sampleRate, .battery, .startMeasurement], periodic: [.battery], whenIdle: [.stopMeasurement])
    }

    /// The rate griptrack sets (`05 C1 00 00 03`: 80 Hz) and times samples at. Whether uploads follow the A/D rate is
    /// not published (assumed); `HostStampedClock` follows the real arrivals between 20 and 320 Hz either way.
    static let nominalHz = 80.0
    /// The rate code of `nominalHz` in the set-A/D-rate command: 0 = 10, 1 = 20, 2 = 40, 3 = 80, 4 = 160, 5 = 320 Hz.
    static let rateCode: UInt8 = 0x03
    /// Weights are unsigned: 0 … 500 kg covers the CTS500's name and any pull; a negative weight sent as a
    /// two's-complement u32 (unknown) would read 42 million kg and be refused here, not taken.
    static let measurementRangeKg: ClosedRange<Float> = 0...500
    public var measurementRangeKg: ClosedRange<Float> { Self.measurementRangeKg }
    static let maxBelievableKgPerSecond: Float = 10_000

    static let header: UInt8 = 0x05
    /// Byte 1 of a typed answer.
    static let responseFlag: UInt8 = 0x80

    /// Opcodes (byte 1 of a command). Only the first five are sent; the others are known so their echoes are
    /// recognised as acknowledgements and never read as weights.
    enum Opcode: UInt8, CaseIterable {
        case startUpload = 0xAA, stopUpload = 0xAB, tare = 0xA6, battery = 0xC4, setRate = 0xC1
        case zero = 0x86, readWeight = 0xA9, temperature = 0xC5, setBaud = 0xC0, peakMode = 0xCA, powerOnReset = 0x85
        case range = 0x81, division = 0x82, calibrationWeight1 = 0x83, calibrationWeight2 = 0x84
        case runCalibration1 = 0xA1, runCalibration2 = 0xA2, noLoadCalibration = 0xA7, firmware = 0xA4
        case shutdownTimer = 0xC3, temperatureLow = 0xC6, temperatureHigh = 0xC7
        case weightLimit1 = 0xD1, weightLimit2 = 0xD2, weightLimit3 = 0xD3, weightLimit4 = 0xD4
    }

    /// Whether `byte` is a known opcode, without building the enum's table (hot path).
    @inline(__always)
    static func isOpcode(_ byte: UInt8) -> Bool { Opcode(rawValue: byte) != nil }

    /// The additive checksum of `bytes`: their sum mod 256.
    static func checksum(_ bytes: some Sequence<UInt8>) -> UInt8 { bytes.reduce(0, &+) }

    /// A 6-byte command with its checksum.
    static func command(_ opcode: Opcode, _ p2: UInt8 = 0) -> [UInt8] {
        let body: [UInt8] = [header, opcode.rawValue, 0x00, 0x00, p2]
        return body + [checksum(body)]
    }

    private static let commands: [(DeviceCommand, Opcode, UInt8)] = [
        (.startMeasurement, .startUpload, 0), (.stopMeasurement, .stopUpload, 0), (.tare, .tare, 0),
        (.battery, .battery, 0), (.sampleRate, .setRate, rateCode),
    ]

    public func encode(_ command: DeviceCommand) -> [UInt8]? {
        Self.commands.first { $0.0 == command }.map { Self.command($0.1, $0.2) }
    }

    public func command(fromControlWrite bytes: some Collection<UInt8>) -> DeviceCommand? {
        Self.commands.first { Self.command($0.1, $0.2).elementsEqual(bytes) }?.0
    }

    public func makeDecoder() -> CTS500Decoder { CTS500Decoder() }

    /// A notification that starts with the header; a piece of the stream need not hold a whole frame.
    public func looksLikeDataFrame(_ bytes: some Collection<UInt8>) -> Bool { bytes.first == Self.header }
}

/// Reassembles and decodes one CTS500 stream: buffers a frame split across notifications, resynchronises on the
/// header after bytes that belong to no frame, and times weights on arrival.
///
/// One notification's outcome covers every frame that ends in it: `samples(n)` for n weights, `consumed` when it held
/// only acknowledgements or the start of a frame, `event(.batteryMillivolts)` for the battery answer (one that came
/// beside weights is reported with the next notification without any), or a rejection when any of its bytes failed: `bad_checksum` (a frame whose
/// checksum does not match; the stream drops one byte and looks for the next header, as both clients do) or
/// `unframed` (bytes before a header). A rejected notification emits none of its weights.
public struct CTS500Decoder: FrameDecoder {
    /// Bytes of a frame not yet complete, the first in the low byte; at most 6 (a 7th always decides).
    private struct Pending: Sendable {
        var bits: UInt64 = 0
        var count = 0

        @inline(__always) subscript(index: Int) -> UInt8 { UInt8(truncatingIfNeeded: bits >> (8 * index)) }

        @inline(__always) mutating func append(_ byte: UInt8) {
            bits |= UInt64(byte) << (8 * count)
            count += 1
        }

        @inline(__always) mutating func drop(_ n: Int) {
            bits = n >= 8 ? 0 : bits >> (8 * n)
            count -= n
        }

        /// The sum of the first `n` bytes, mod 256.
        @inline(__always) func checksum(of n: Int) -> UInt8 {
            var sum: UInt8 = 0
            for index in 0..<n { sum &+= self[index] }
            return sum
        }
    }

    /// What one frame was.
    private enum Frame {
        case weight(Float)
        case acknowledgement
        case battery(millivolts: UInt32)
        case otherResponse
    }

    /// What the bytes of one notification came to, without emitting anything.
    private struct Tally {
        var weights = 0
        var battery: UInt32?
        var rejection: FrameRejection?
    }

    private var pending = Pending()
    /// A battery answer (mV) that came with weights, reported with the next notification that has none.
    private var pendingBattery: UInt32?
    private var clock = HostStampedClock(nominalHz: CTS500.nominalHz)
    private var plausibility = PlausibilityCheck(
        rangeKg: CTS500.measurementRangeKg, maxKgPerSecond: CTS500.maxBelievableKgPerSecond)

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
        // The stream moves on whatever the outcome: the next notification continues where these bytes left it.
        let start = pending
        var tally = Tally()
        Self.scan(frame, pending: &pending, tally: &tally) { _ in }
        if let rejection = tally.rejection { return .rejected(rejection) }
        // A battery answer beside weights waits for a notification without any (an event emits no sample).
        if let battery = tally.battery { pendingBattery = battery }
        guard tally.weights > 0 else {
            defer { pendingBattery = nil }
            return pendingBattery.map { .event(.batteryMillivolts($0)) } ?? .consumed
        }

        // The weights are timed together, then checked, then emitted (a rejected notification emits none).
        var timing = clock
        let times = timing.place(count: tally.weights, arrivedAt: hostMicros)
        var index: UInt32 = 0
        var earlier: RawSample?
        var refused: FrameRejection?
        var again = start
        var ignored = Tally()
        Self.scan(frame, pending: &again, tally: &ignored) { kilograms in
            let sample = RawSample(deviceMicros: times.firstMicros &+ index &* times.stepMicros, kilograms: kilograms)
            index &+= 1
            if refused == nil { refused = plausibility.rejection(of: sample, after: earlier) }
            earlier = sample
        }
        if let refused { return .rejected(refused) }
        clock = timing
        index = 0
        again = start
        Self.scan(frame, pending: &again, tally: &ignored) { kilograms in
            emit(RawSample(deviceMicros: times.firstMicros &+ index &* times.stepMicros, kilograms: kilograms))
            index &+= 1
        }
        if let last = earlier { plausibility.accept(last) }
        return .samples(tally.weights)
    }

    /// Feeds the notification's bytes through the reassembly buffer: `weight` is called for each weight frame that
    /// ends in them, and `tally` counts the frames and keeps the first failure.
    @inline(__always)
    private static func scan(
        _ bytes: UnsafeRawBufferPointer, pending: inout Pending, tally: inout Tally, weight: (Float) -> Void
    ) {
        for byte in bytes {
            pending.append(byte)
            while let frame = nextFrame(&pending, tally: &tally) {
                switch frame {
                case .weight(let kilograms):
                    tally.weights += 1
                    weight(kilograms)
                case .battery(let millivolts):
                    tally.battery = millivolts
                case .acknowledgement, .otherResponse:
                    break
                }
            }
        }
    }

    /// The frame at the start of `pending`, consumed, or nil when it needs more bytes. Bytes before a header are
    /// dropped (`unframed`); a frame whose checksum fails loses its first byte (`bad_checksum`) and the search goes on.
    @inline(__always)
    private static func nextFrame(_ pending: inout Pending, tally: inout Tally) -> Frame? {
        while pending.count > 0 {
            guard pending[0] == CTS500.header else {
                pending.drop(1)
                tally.rejection = tally.rejection ?? .unframed
                continue
            }
            // Ambiguity rule: a known opcode whose 6 bytes check is an acknowledgement (the echo of a command).
            if pending.count >= 6, CTS500.isOpcode(pending[1]), pending.checksum(of: 5) == pending[5] {
                pending.drop(6)
                return .acknowledgement
            }
            guard pending.count >= 7 else { return nil }
            guard pending.checksum(of: 6) == pending[6] else {
                pending.drop(1)
                tally.rejection = tally.rejection ?? .badChecksum
                continue
            }
            let frame: Frame
            if pending[1] == CTS500.responseFlag {
                // `05 80 op d0 d1 d2 cs`; the battery's volts are `(d1 << 8 | d2) / 100`.
                frame = pending[2] == CTS500.Opcode.battery.rawValue
                    ? .battery(millivolts: (UInt32(pending[4]) << 8 | UInt32(pending[5])) * 10) : .otherResponse
            } else if CTS500.isOpcode(pending[1]) {
                frame = .otherResponse
            } else {
                let count = UInt32(pending[2]) << 24 | UInt32(pending[3]) << 16 | UInt32(pending[4]) << 8
                    | UInt32(pending[5])
                frame = .weight(Float(Double(count) / 100))
            }
            pending.drop(7)
            return frame
        }
        return nil
    }
}
