/// Everything generic code needs to know about one kind of force device.
///
/// A new device is one file defining a conforming type, one line in `DeviceProfiles.all`, and one capture in
/// `captures/`, in the spirit of gpsd's driver table.
public protocol DeviceProfile: Sendable {
    associatedtype Decoder: FrameDecoder

    /// Human name, e.g. "Tindeq Progressor".
    var name: String { get }
    /// Short stable identifier used in config, the database and JSON, e.g. "progressor".
    var identifier: String { get }
    /// The primary GATT service, lower-case canonical UUID string.
    var serviceUUID: String { get }
    /// The characteristic that notifies force frames.
    var dataCharacteristicUUID: String { get }
    /// The characteristic commands are written to.
    var controlCharacteristicUUID: String { get }
    /// Advertised local names start with this, e.g. "Progressor".
    var namePrefix: String { get }

    /// The bytes to write to the control point for a command, or nil when the device has no such command.
    func encode(_ command: DeviceCommand) -> [UInt8]?
    /// Recognises a control-point write (as seen in a capture) as a command.
    func command(fromControlWrite bytes: some Collection<UInt8>) -> DeviceCommand?
    /// A fresh decoder for one stream.
    func makeDecoder() -> Decoder
    /// Whether a notification value has the shape of this device's data frames; used to guess the force handle
    /// when a capture has no GATT discovery.
    func looksLikeDataFrame(_ bytes: some Collection<UInt8>) -> Bool
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
    ///   - emit: called once per decoded sample, in order.
    /// - Returns: what the frame held; a rejection never emits a sample.
    /// - Important: HOT PATH. Must not allocate, lock, log or trap on any input.
    mutating func decode(_ frame: UnsafeRawBufferPointer, emit: (RawSample) -> Void) -> FrameOutcome

    /// Tells the decoder which command was last written, so a generic command response can be interpreted.
    mutating func noteCommandSent(_ command: DeviceCommand)
}

/// The table of supported devices.
public enum DeviceProfiles {
    /// Every supported device, reference device first.
    public static let all: [any DeviceProfile] = [TindeqProgressor()]

    /// The profile with this identifier (`progressor`), if any.
    public static func named(_ identifier: String) -> (any DeviceProfile)? {
        all.first { $0.identifier == identifier }
    }

    /// The profile whose data characteristic has this UUID, if any.
    public static func forDataCharacteristic(_ uuid: String) -> (any DeviceProfile)? {
        let wanted = uuid.lowercased()
        return all.first { $0.dataCharacteristicUUID == wanted }
    }
}
