/// Everything generic code needs to know about one kind of force device: the driver table's row.
///
/// A new device is one file defining a conforming type, one line in `DeviceProfiles.all`, one simulated capture in
/// `captures/`, and its tests, in the spirit of gpsd's driver table (`docs/devices.md`, "Adding a device"). Generic
/// code — the daemon's device control, BlueZ discovery, replay's survey, `griptrack devices` — reads only this.
public protocol DeviceProfile: Sendable {
    associatedtype Decoder: FrameDecoder

    /// Human name, e.g. "Tindeq Progressor".
    var name: String { get }
    /// Short stable identifier used in config, the database and JSON, e.g. "progressor".
    var identifier: String { get }

    // MARK: What identifies the device

    /// The GATT service holding the data characteristic, lower-case canonical 128-bit UUID string.
    var serviceUUID: String { get }
    /// Advertised local names start with this, e.g. "Progressor"; nil for a standard service any maker may use, or
    /// for a device known by ``exactNames``.
    var namePrefix: String? { get }
    /// Names the device advertises exactly (the CTS500's `CTS500` and `CTS-300`), for a device whose name is all
    /// that tells it from other products on the same generic UART; empty when ``namePrefix`` decides.
    var exactNames: [String] { get }
    /// The advertisement's manufacturer-data company id, for devices recognised (or read) by it.
    var manufacturerID: UInt16? { get }

    // MARK: How data arrives

    /// Notifications, indications or advertisements.
    var transport: DataTransport { get }
    /// Whether samples carry the device's own time, or are stamped on arrival.
    var clock: SampleClock { get }
    /// The characteristic that carries force frames.
    var dataCharacteristicUUID: String { get }
    /// The characteristic commands are written to; nil for a device that takes none.
    var controlCharacteristicUUID: String? { get }
    /// Whether the control characteristic sits in ``serviceUUID`` (else it is looked up on the whole device).
    var controlSharesDataService: Bool { get }
    /// Whether the data characteristic belongs to a generic UART that other products use too (HM-10's `FFE1`, the
    /// Nordic UART, Microchip's Transparent UART): then only the name identifies the device, and a capture's
    /// discovery showing the characteristic does not (replay judges the frames instead).
    var dataServiceIsShared: Bool { get }

    // MARK: Lifecycle

    /// What the daemon writes when the link is ready, periodically, and when the device has been idle.
    var lifecycle: DeviceLifecycle { get }

    /// The bytes to write to the control point for a command, or nil when the device has no such command.
    func encode(_ command: DeviceCommand) -> [UInt8]?
    /// Recognises a control-point write (as seen in a capture) as a command.
    func command(fromControlWrite bytes: some Collection<UInt8>) -> DeviceCommand?
    /// A fresh decoder for one stream.
    func makeDecoder() -> Decoder
    /// Whether a notification value has the shape of this device's data frames; used to guess the force handle
    /// when a capture has no GATT discovery.
    func looksLikeDataFrame(_ bytes: some Collection<UInt8>) -> Bool
    /// The forces (kg) this device can report; its decoder refuses any other value, and an import of samples said to
    /// come from it refuses them too (`docs/devices.md`, "Plausibility").
    var measurementRangeKg: ClosedRange<Float> { get }
    /// The step between two values the device can report (kg), when it is coarse enough to matter: a device that
    /// reports whole kilograms (Climbro) has 1, and metrics that time a rise (RFD, time to peak) are refused for it
    /// (`docs/metrics.md`, "What each figure needs"); 0 for a device whose values are finer than any metric needs.
    var resolutionKg: Float { get }

    // MARK: Per-device calibration

    /// This profile with the user's calibration coefficient (`[device] calibration`, `replay --calibration`), for a
    /// device whose frames carry raw counts; a device that reports kilograms ignores it.
    func calibrated(_ coefficient: Double?) -> any DeviceProfile
    /// True when the device's frames carry raw counts and no coefficient was given: nothing would decode, so the
    /// daemon and replay refuse to start and say where to set one.
    var lacksCalibration: Bool { get }
}

extension DeviceProfile {
    public var manufacturerID: UInt16? { nil }
    public var controlSharesDataService: Bool { true }
    public var exactNames: [String] { [] }
    public var resolutionKg: Float { 0 }
    /// Whether an advertised or cached name is this device's: one of ``exactNames``, or one starting with
    /// ``namePrefix``.
    public func matchesName(_ name: String) -> Bool {
        exactNames.contains(name) || (namePrefix.map { name.hasPrefix($0) } ?? false)
    }
    public var dataServiceIsShared: Bool { false }
    public func calibrated(_ coefficient: Double?) -> any DeviceProfile { self }
    public var lacksCalibration: Bool { false }
}

/// How a device delivers its force frames.
public enum DataTransport: String, Sendable {
    /// GATT notifications (unacknowledged; BlueZ can hand them over a socket with AcquireNotify).
    case notify
    /// GATT indications (one round trip each; BlueZ delivers them through StartNotify only).
    case indicate
    /// Broadcast in advertisements; no connection.
    case advertisement
}

/// Where a sample's time comes from.
public enum SampleClock: Sendable, Equatable {
    /// The device stamps every sample (µs since its START, wrapping at 2³²).
    case device
    /// The device sends no time: samples are stamped on arrival at the host, spaced at about `nominalHz`
    /// (`HostStampedClock`).
    case host(nominalHz: Double)
}

/// The commands generic device control writes, and when.
public struct DeviceLifecycle: Sendable, Equatable {
    /// Written in order once notifications are on (e.g. START, then a battery query).
    public var whenReady: [DeviceCommand]
    /// Written every `battery_interval` while streaming (e.g. the battery query).
    public var periodic: [DeviceCommand]
    /// Written in order after a session gap without effort (e.g. STOP; SLEEP follows only with `sleep_when_idle`).
    public var whenIdle: [DeviceCommand]
    /// Written after `whenIdle` when the configuration asks the device to sleep.
    public var sleep: DeviceCommand?

    public init(
        whenReady: [DeviceCommand] = [], periodic: [DeviceCommand] = [], whenIdle: [DeviceCommand] = [],
        sleep: DeviceCommand? = nil
    ) {
        self.whenReady = whenReady
        self.periodic = periodic
        self.whenIdle = whenIdle
        self.sleep = sleep
    }

    /// A device that streams as soon as notifications are on and takes no commands.
    public static let passive = DeviceLifecycle()

    /// Whether idle control stops the device (so a client's WATCH or RECORD must start it again).
    public var stopsWhenIdle: Bool { !whenIdle.isEmpty }
}

/// Decodes the frames of one notification stream. Stateful: duplicate detection and command correlation.
///
/// - Important: conforming types should hold no heap storage: the pipeline moves the decoder out of its state
///   for each frame, which is free for a plain value and would copy-on-write a buffer.
public protocol FrameDecoder: Sendable {
    /// Decodes one notification value.
    ///
    /// - Parameters:
    ///   - frame: the characteristic value, exactly as notified.
    ///   - hostMicros: when the host received it (µs); host-stamped devices time their samples with it.
    ///   - emit: called once per decoded sample, in order.
    /// - Returns: what the frame held; a rejection never emits a sample.
    /// - Important: HOT PATH. Must not allocate, lock, log or trap on any input.
    mutating func decode(_ frame: UnsafeRawBufferPointer, hostMicros: Int64, emit: (RawSample) -> Void) -> FrameOutcome

    /// Tells the decoder which command was last written, so a generic command response can be interpreted.
    mutating func noteCommandSent(_ command: DeviceCommand)

    /// Reports the device numbered and the host never received (the Motherboard's sample number), since the decoder
    /// began; nil for a device whose frames carry no such count.
    var lostReports: Int? { get }
}

extension FrameDecoder {
    public var lostReports: Int? { nil }
}

/// The table of supported devices.
public enum DeviceProfiles {
    /// Every supported device, reference device first. The consumer loop (griptrackd's and the replay's) is
    /// specialized for each one: a new profile also goes into the one `@_specialize` list, on
    /// `StreamConsumer.processBatch` (GripStream/Pipeline/StreamConsumer.swift; without, it runs the generic loop,
    /// which asks the Swift runtime for metadata on every sample).
    public static let all: [any DeviceProfile] = [
        TindeqProgressor(), PitchSixForceBoard(), Entralpi(), WeightScale(), WeihengWHC06(), FrezDyno(), CTS500(), Climbro(),
        GriptoniteMotherboard(),
    ]

    /// The company ids of devices that send their data in advertisements: only those adverts reach a pipeline.
    public static let advertisingManufacturers: Set<UInt16> = Set(
        all.compactMap { $0.transport == .advertisement ? $0.manufacturerID : nil })

    /// Every identifier, for messages ("progressor, forceboard, …").
    public static var identifiers: [String] { all.map(\.identifier) }

    /// The profile with this identifier (`progressor`), if any, with `calibration` applied
    /// (``DeviceProfile/calibrated(_:)``).
    public static func named(_ identifier: String, calibration: Double? = nil) -> (any DeviceProfile)? {
        all.first { $0.identifier == identifier }?.calibrated(calibration)
    }

    /// The profile whose data characteristic has this UUID, if any.
    public static func forDataCharacteristic(_ uuid: String) -> (any DeviceProfile)? {
        let wanted = uuid.lowercased()
        return all.first { $0.dataCharacteristicUUID == wanted }
    }
}

/// A Bluetooth SIG 16-bit UUID in canonical 128-bit form.
func sigUUID(_ short: String) -> String { "0000\(short)-0000-1000-8000-00805f9b34fb" }
