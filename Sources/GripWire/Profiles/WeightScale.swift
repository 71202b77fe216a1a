/// Any device with the Bluetooth SIG Weight Scale service, 0x181D (format: `docs/devices.md`, "SIG Weight Scale").
///
/// Weight Measurement (0x2A9D) is indicate-only: `flags u8 | weight u16 LE | optional fields`, the weight in
/// 0.005 kg (or 0.01 lb when flag bit 0 is set); bit 1 adds a 7-byte date-time, bit 2 a user id byte, bit 3 BMI and
/// height (2 × u16). The date-time has whole seconds only, so samples are host-stamped. Indications need a round
/// trip each, so such scales report a few times a second at most: efforts are seen, RFD is not.
public struct WeightScale: DeviceProfile {
    public init() {}

    public var name: String { "Bluetooth SIG Weight Scale" }
    public var identifier: String { "weightscale" }
    public var serviceUUID: String { sigUUID("181d") }
    /// Any maker may implement the service, so no name identifies it.
    public var namePrefix: String? { nil }
    public var transport: DataTransport { .indicate }
    public var clock: SampleClock { .host(nominalHz: Self.nominalHz) }
    public var dataCharacteristicUUID: String { sigUUID("2a9d") }
    public var controlCharacteristicUUID: String? { nil }
    public var lifecycle: DeviceLifecycle { .passive }

    static let nominalHz = 2.0
    /// What the u16 can hold in 0.005 kg steps (0…327.675 kg); 0xFFFF means "measurement unsuccessful".
    static let measurementRangeKg: ClosedRange<Float> = 0...327.67
    public var measurementRangeKg: ClosedRange<Float> { Self.measurementRangeKg }
    static let maxBelievableKgPerSecond: Float = 10_000

    public func encode(_ command: DeviceCommand) -> [UInt8]? { nil }
    public func command(fromControlWrite bytes: some Collection<UInt8>) -> DeviceCommand? { nil }
    public func makeDecoder() -> SingleValueDecoder {
        SingleValueDecoder(
            layout: .weightMeasurement, nominalHz: Self.nominalHz, rangeKg: Self.measurementRangeKg,
            maxKgPerSecond: Self.maxBelievableKgPerSecond)
    }

    /// Flags with no reserved bit set and exactly the length they announce.
    public func looksLikeDataFrame(_ bytes: some Collection<UInt8>) -> Bool {
        guard let flags = bytes.first else { return false }
        return SingleValueDecoder.weightMeasurementLength(flags: flags) == bytes.count
    }
}
