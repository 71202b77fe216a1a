/// The Entralpi force plate, also sold as Lefu and Unique CW275 scales (protocol: `docs/devices.md`, "Entralpi").
///
/// One sample per notification on characteristic 0xFFF1: a big-endian u16 in hundredths of a kilogram. The plate
/// advertises the SIG Weight Scale service but does not use its format, so it is recognised by its name first. No
/// commands and no device time: it streams once notifications are on, and samples are host-stamped. Its rate is
/// not published; 10 Hz is the grid assumed until a capture shows otherwise (`HostStampedClock` follows the real
/// arrival times either way).
public struct Entralpi: DeviceProfile {
    public init() {}

    public var name: String { "Entralpi" }
    public var identifier: String { "entralpi" }
    public var serviceUUID: String { sigUUID("fff0") }
    public var namePrefix: String? { "ENTRALPI" }
    public var transport: DataTransport { .notify }
    public var clock: SampleClock { .host(nominalHz: Self.nominalHz) }
    public var dataCharacteristicUUID: String { sigUUID("fff1") }
    public var controlCharacteristicUUID: String? { nil }
    public var lifecycle: DeviceLifecycle { .passive }

    static let nominalHz = 10.0
    /// A u16 in hundredths reads 0…655.35 kg; a plate people stand or hang on sees body weight plus load, so above
    /// 300 kg is a corrupted value.
    static let measurementRangeKg: ClosedRange<Float> = 0...300
    public var measurementRangeKg: ClosedRange<Float> { Self.measurementRangeKg }
    static let maxBelievableKgPerSecond: Float = 10_000

    public func encode(_ command: DeviceCommand) -> [UInt8]? { nil }
    public func command(fromControlWrite bytes: some Collection<UInt8>) -> DeviceCommand? { nil }
    public func makeDecoder() -> SingleValueDecoder {
        SingleValueDecoder(
            layout: .bigEndianHundredths, nominalHz: Self.nominalHz, rangeKg: Self.measurementRangeKg,
            maxKgPerSecond: Self.maxBelievableKgPerSecond)
    }
    public func looksLikeDataFrame(_ bytes: some Collection<UInt8>) -> Bool { bytes.count == 2 }
}
