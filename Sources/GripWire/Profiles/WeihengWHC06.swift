/// The Weiheng WH-C06 hanging scale, which sends its weight only in advertisements (protocol: `docs/devices.md`,
/// "Weiheng WH-C06").
///
/// No GATT data and no connection: the weight is manufacturer-specific data under company id 0x0100, read from
/// BlueZ's `ManufacturerData` while discovery runs with `DuplicateData` (else BlueZ drops repeated adverts). Counted
/// after the company id: bytes 10–11 are the weight as a big-endian signed int16 in hundredths (signed, so a tared
/// scale reads negative), byte 14's low nibble the unit (1 kg, 2 lb, 3 st, 4 jin) and its high nibble a stable flag.
/// Both public clients (hangtime-grip-connect, grip_gains_companion) agree on these offsets. About 2 adverts a
/// second: samples are host-stamped, efforts and peaks are seen, RFD is not.
public struct WeihengWHC06: DeviceProfile {
    public init() {}

    public var name: String { "Weiheng WH-C06" }
    public var identifier: String { "whc06" }
    /// No GATT service: the scale is recognised by its name or its manufacturer data.
    public var serviceUUID: String { "" }
    public var namePrefix: String? { "IF_B7" }
    public var manufacturerID: UInt16? { 0x0100 }
    public var transport: DataTransport { .advertisement }
    public var clock: SampleClock { .host(nominalHz: Self.nominalHz) }
    /// No GATT characteristic: replay and the daemon put advertisements on ``AdvertisementChannel/handle``.
    public var dataCharacteristicUUID: String { "" }
    public var controlCharacteristicUUID: String? { nil }
    public var lifecycle: DeviceLifecycle { .passive }

    static let nominalHz = 2.0
    /// A hanging scale for luggage and climbing tests; 200 kg is above its rating and any hang.
    static let measurementRangeKg: ClosedRange<Float> = -10...200
    public var measurementRangeKg: ClosedRange<Float> { Self.measurementRangeKg }
    static let maxBelievableKgPerSecond: Float = 10_000
    public func encode(_ command: DeviceCommand) -> [UInt8]? { nil }
    public func command(fromControlWrite bytes: some Collection<UInt8>) -> DeviceCommand? { nil }
    public func makeDecoder() -> SingleValueDecoder {
        SingleValueDecoder(
            layout: .whc06ManufacturerData, nominalHz: Self.nominalHz, rangeKg: Self.measurementRangeKg,
            maxKgPerSecond: Self.maxBelievableKgPerSecond)
    }

    /// At least 15 bytes with a known unit.
    public func looksLikeDataFrame(_ bytes: some Collection<UInt8>) -> Bool {
        guard bytes.count >= 15 else { return false }
        let unit = bytes[bytes.index(bytes.startIndex, offsetBy: 14)] & 0x0F
        return Self.kilogramsPerUnit(unit) != nil
    }

    /// kg per unit, by the unit nibble: kg, lb, stone, jin (500 g).
    static func kilogramsPerUnit(_ unit: UInt8) -> Float? {
        switch unit {
        case 1: 1
        case 2: 0.453_592
        case 3: 6.350_29
        case 4: 0.5
        default: nil
        }
    }
}

/// Advertisements have no ATT handle; replay and the daemon give their data this one (ATT never uses handle 0).
public enum AdvertisementChannel {
    public static let handle: UInt16 = 0x0000
}
