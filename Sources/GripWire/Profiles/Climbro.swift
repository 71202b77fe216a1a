/// The Climbro force-sensing hangboard (protocol: `docs/devices.md`, "Climbro").
///
/// A Microchip RN487x Transparent UART that streams once subscribed: a byte stream read byte by byte with a mode that
/// persists across notifications. `F0` switches to battery (the next bytes are battery readings), `F5` to sensor
/// (the next bytes are samples, one whole kilogram each), `F6` is the escaped value 36 kg; any other byte is a
/// reading in the current mode. One source (hangtime-grip-connect's `climbro.model.ts`, corrected the day it was
/// written, so probably tested on a board); its rate is not published (10 Hz assumed, samples host-stamped).
///
/// Whole kilograms: a pull's rise is a staircase of 1 kg steps, so metrics that time the rise (RFD, time to peak) are
/// refused with the reason (``resolutionKg``), as they are for devices too slow for them.
public struct Climbro: DeviceProfile {
    public init() {}

    public var name: String { "Climbro" }
    public var identifier: String { "climbro" }
    public var serviceUUID: String { "49535343-fe7d-4ae5-8fa9-9fafd205e455" }
    /// "UART Transmit" (notify).
    public var dataCharacteristicUUID: String { "49535343-1e4d-4bd9-ba61-23c647249616" }
    /// The UART's write characteristic is unused: the board takes no commands.
    public var controlCharacteristicUUID: String? { nil }
    /// hangtime's filter is the prefix `Climbro` (Web Bluetooth matches it case-sensitively).
    public var namePrefix: String? { "Climbro" }
    /// Microchip's Transparent UART is in many products: the name decides.
    public var dataServiceIsShared: Bool { true }
    public var transport: DataTransport { .notify }
    public var clock: SampleClock { .host(nominalHz: Self.nominalHz) }
    public var lifecycle: DeviceLifecycle { .passive }
    public var resolutionKg: Float { 1 }

    /// Assumed: no source gives the rate; `HostStampedClock` follows the arrivals between 2.5 and 40 Hz.
    static let nominalHz = 10.0
    /// A byte below the markers: 0 … 239 kg (`F6` reads 36).
    static let measurementRangeKg: ClosedRange<Float> = 0...239
    public var measurementRangeKg: ClosedRange<Float> { Self.measurementRangeKg }
    static let maxBelievableKgPerSecond: Float = 10_000

    static let batteryMarker: UInt8 = 0xF0
    static let sensorMarker: UInt8 = 0xF5
    /// "Reserved word for 36kg" (why 36 is escaped, no source says).
    static let escaped36: UInt8 = 0xF6
    static let escapedKilograms: Float = 36

    public func encode(_ command: DeviceCommand) -> [UInt8]? { nil }
    public func command(fromControlWrite bytes: some Collection<UInt8>) -> DeviceCommand? { nil }
    public func makeDecoder() -> ClimbroDecoder { ClimbroDecoder() }

    /// A notification that holds a marker.
    public func looksLikeDataFrame(_ bytes: some Collection<UInt8>) -> Bool {
        bytes.contains(Self.sensorMarker) || bytes.contains(Self.batteryMarker)
    }
}

/// Decodes one Climbro stream byte by byte, the mode carried from one notification to the next.
///
/// A notification gives `samples(n)` for its n sensor bytes (0 when it held only markers and battery readings); it
/// is rejected whole, emitting nothing, when a byte comes before any marker (`unframed`) or a sensor byte is one no
/// sample can be (`F1`–`F4`, `F7`–`FF`: `out_of_range`). Battery readings, (b − 112) × 100 / 118 %, are decoded but
/// not reported (griptrack's device messages carry a battery voltage, not a percentage).
public struct ClimbroDecoder: FrameDecoder {
    private enum Mode: Sendable { case none, battery, sensor }

    private var mode = Mode.none
    private var clock = HostStampedClock(nominalHz: Climbro.nominalHz)
    private var plausibility = PlausibilityCheck(
        rangeKg: Climbro.measurementRangeKg, maxKgPerSecond: Climbro.maxBelievableKgPerSecond)
    /// The last battery reading (%), kept for a future battery-percentage message.
    public private(set) var batteryPercent: Int?

    public init() {}

    /// The board takes no commands; a START seen in a capture would still restart the grid.
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
        let start = mode
        var count = 0
        var rejection: FrameRejection?
        var battery: Int?
        Self.scan(frame, mode: &mode, rejection: &rejection, battery: &battery) { _ in count += 1 }
        if let rejection { return .rejected(rejection) }
        if let battery { batteryPercent = battery }
        guard count > 0 else { return .consumed }

        var timing = clock
        let times = timing.place(count: count, arrivedAt: hostMicros)
        var index: UInt32 = 0
        var earlier: RawSample?
        var refused: FrameRejection?
        var again = start
        Self.scan(frame, mode: &again, rejection: &rejection, battery: &battery) { kilograms in
            let sample = RawSample(deviceMicros: times.firstMicros &+ index &* times.stepMicros, kilograms: kilograms)
            index &+= 1
            if refused == nil { refused = plausibility.rejection(of: sample, after: earlier) }
            earlier = sample
        }
        if let refused { return .rejected(refused) }
        clock = timing
        index = 0
        again = start
        Self.scan(frame, mode: &again, rejection: &rejection, battery: &battery) { kilograms in
            emit(RawSample(deviceMicros: times.firstMicros &+ index &* times.stepMicros, kilograms: kilograms))
            index &+= 1
        }
        if let last = earlier { plausibility.accept(last) }
        return .samples(count)
    }

    /// Walks the bytes from `mode`: `sample` gets each sensor reading (kg); the first failure is kept in `rejection`,
    /// the last battery reading (%) in `battery`.
    @inline(__always)
    private static func scan(
        _ bytes: UnsafeRawBufferPointer, mode: inout Mode, rejection: inout FrameRejection?, battery: inout Int?,
        sample: (Float) -> Void
    ) {
        for byte in bytes {
            switch byte {
            case Climbro.batteryMarker:
                mode = .battery
            case Climbro.sensorMarker:
                mode = .sensor
            default:
                switch mode {
                case .none:
                    rejection = rejection ?? .unframed
                case .battery:
                    battery = (Int(byte) - 112) * 100 / 118
                case .sensor:
                    if byte == Climbro.escaped36 {
                        sample(Climbro.escapedKilograms)
                    } else if byte >= 0xF0 {
                        rejection = rejection ?? .outOfRange
                    } else {
                        sample(Float(byte))
                    }
                }
            }
        }
    }
}
