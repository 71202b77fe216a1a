import GripWire

/// Which device a simulated session plays, with its GATT layout and how it puts force on the air.
///
/// The frame layouts here are written from the devices' published descriptions (`docs/devices.md`), not from the
/// decoders, so a replay test compares two readings of the same description.
public enum SimulatedDevice: String, Sendable, CaseIterable {
    case progressor, forceBoard, entralpi, weightScale, whc06, frezDyno

    /// The simulated Frez Dyno's calibration coefficient (kg per ADC count), and its unloaded ADC reading.
    public static let frezCalibration = 0.0001
    static let frezUnloadedADC = 84_000.0

    /// The profile a replay should choose for this device.
    public var profile: any DeviceProfile {
        switch self {
        case .progressor: TindeqProgressor()
        case .forceBoard: PitchSixForceBoard()
        case .entralpi: Entralpi()
        case .weightScale: WeightScale()
        case .whc06: WeihengWHC06()
        case .frezDyno: FrezDyno(calibration: Self.frezCalibration)
        }
    }

    /// Samples per second on the air; the Progressor keeps its own measured timing (`SessionRenderer`).
    var rateHz: Double {
        switch self {
        case .progressor: 88
        case .forceBoard: 80
        case .entralpi: 10
        case .weightScale: 5
        case .whc06: 2
        case .frezDyno: 250
        }
    }

    /// How many samples one notification carries (host-stamped devices).
    var samplesPerFrame: Int {
        switch self {
        case .forceBoard: 3
        case .frezDyno: 9
        case .progressor, .entralpi, .weightScale, .whc06: 1
        }
    }

    /// One notification carrying these forces (kg), laid out as the device sends them; `millis` are the samples'
    /// device times (ms since START), for a device that sends them.
    func frame(kilograms: [Double], millis: [UInt32]) -> [UInt8] {
        switch self {
        case .progressor:
            preconditionFailure("the Progressor's frames carry device time; SessionRenderer writes them")
        case .forceBoard:
            // u16 BE count, then per sample pounds as b0·32768 + b1·256 + b2 (b1 stays below 128).
            var bytes = [UInt8(kilograms.count >> 8), UInt8(kilograms.count & 0xFF)]
            for kg in kilograms {
                let pounds = Int((max(kg, 0) / 0.453_592).rounded())
                bytes += [UInt8(pounds / 32_768), UInt8(pounds % 32_768 / 256), UInt8(pounds % 256)]
            }
            return bytes
        case .entralpi:
            let hundredths = UInt16(min(max(kilograms[0], 0) * 100, 65_535).rounded())
            return [UInt8(hundredths >> 8), UInt8(hundredths & 0xFF)]
        case .weightScale:
            // Flags 0 (SI, no optional fields), weight in 0.005 kg, little-endian.
            let steps = UInt16(min(max(kilograms[0], 0) / 0.005, 65_534).rounded())
            return [0x00, UInt8(steps & 0xFF), UInt8(steps >> 8)]
        case .whc06:
            // Manufacturer data after the company id: bytes 10–11 the weight, signed BE hundredths of a kg; byte 14
            // unit 1 (kg) in the low nibble and "stable" in the high one; 17 bytes as the scale sends.
            let hundredths = Int16(clamping: Int((kilograms[0] * 100).rounded()))
            var bytes = [UInt8](repeating: 0, count: 17)
            bytes[0...5] = [0xAC, 0x1E, 0x4B, 0x07, 0xC0, 0x6A]
            bytes[10] = UInt8(truncatingIfNeeded: hundredths >> 8)
            bytes[11] = UInt8(truncatingIfNeeded: hundredths)
            bytes[14] = 0x11
            return bytes
        case .frezDyno:
            // `01 00`, then per sample int32 LE raw ADC (unloaded 84 000, 0.1 g a count) and u32 LE ms since START.
            var bytes: [UInt8] = [0x01, 0x00]
            for (kg, ms) in zip(kilograms, millis) {
                let adc = Int32((Self.frezUnloadedADC + kg / Self.frezCalibration).rounded())
                bytes += littleEndianBytes(UInt32(bitPattern: adc)) + littleEndianBytes(ms)
            }
            return bytes
        }
    }

    /// The advertising data an advertising device sends around its manufacturer data: flags, its name, and the
    /// data under company id 0x0100.
    func advertisingData(manufacturerData: [UInt8]) -> [UInt8] {
        let name = Array("IF_B7".utf8)
        return [0x02, 0x01, 0x06] + [UInt8(name.count + 1), 0x09] + name
            + [UInt8(manufacturerData.count + 3), 0xFF, 0x00, 0x01] + manufacturerData
    }

    // MARK: GATT layout

    /// The data characteristic's value handle and its CCCD.
    static let dataValue: UInt16 = 0x000E
    static let dataCCCD: UInt16 = 0x000F
    /// The control point's value handle, for devices that have one.
    var controlValue: UInt16? { profile.controlCharacteristicUUID == nil ? nil : 0x0011 }
    /// A second notifying characteristic (Nordic DFU control point): the stray frames on the wrong handle.
    static let dfuControlValue: UInt16 = 0x0014

    /// GAP, GATT, the device's service (data, then control), and Nordic's DFU service.
    var database: GATTDatabase {
        let profile = profile
        var services: [GATTDatabase.Service] = [
            .init(startHandle: 0x0001, endHandle: 0x0007, uuid: sig("1800")),
            .init(startHandle: 0x0008, endHandle: 0x000B, uuid: sig("1801")),
        ]
        var characteristics: [GATTDatabase.Characteristic] = [
            .init(declarationHandle: 0x000D, properties: profile.transport == .indicate ? 0x20 : 0x10,
                  valueHandle: Self.dataValue, uuid: profile.dataCharacteristicUUID),
        ]
        if let control = profile.controlCharacteristicUUID {
            if profile.controlSharesDataService {
                services.append(.init(startHandle: 0x000C, endHandle: 0x0011, uuid: profile.serviceUUID))
            } else {
                // The Force Board's Device Mode characteristic lives in a service of its own.
                services.append(.init(startHandle: 0x000C, endHandle: 0x000F, uuid: profile.serviceUUID))
                services.append(.init(startHandle: 0x0010, endHandle: 0x0011, uuid: "467a8516-6e39-11eb-9439-0242ac130002"))
            }
            characteristics.append(
                .init(declarationHandle: 0x0010, properties: 0x0C, valueHandle: 0x0011, uuid: control))
        } else {
            services.append(.init(startHandle: 0x000C, endHandle: 0x0011, uuid: profile.serviceUUID))
        }
        services.append(.init(startHandle: 0x0012, endHandle: 0x0015, uuid: sig("fe59")))
        characteristics.append(
            .init(declarationHandle: 0x0013, properties: 0x18, valueHandle: Self.dfuControlValue,
                  uuid: "8ec90001-f315-4f60-9fb8-838830daea50"))
        return GATTDatabase(
            services: services, characteristics: characteristics,
            descriptors: [.init(handle: Self.dataCCCD, uuid: sig("2902")), .init(handle: 0x0015, uuid: sig("2902"))])
    }

    /// A Bluetooth SIG 16-bit UUID in canonical 128-bit form.
    private func sig(_ short: String) -> String { "0000\(short)-0000-1000-8000-00805f9b34fb" }
}
