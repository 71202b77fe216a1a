import Foundation
import GripWire

/// Which device a simulated session plays, with its GATT layout and how it puts force on the air.
///
/// The frame layouts here are written from the devices' published descriptions (`docs/devices.md`), not from the
/// decoders, so a replay test compares two readings of the same description.
public enum SimulatedDevice: String, Sendable, CaseIterable {
    case progressor, forceBoard, entralpi, weightScale, whc06, frezDyno, cts500, climbro, motherboard
    /// Progressor clones, each from its firmware's source (docs/devices.md, "Progressor clones"): the Progressor
    /// protocol with the clone's timing, time origin, control point and answers.
    case hangman, crimpdeq, mito, bigBanger

    /// Whether the device speaks the Progressor protocol (the Tindeq or a clone).
    var speaksProgressor: Bool { [.progressor, .hangman, .crimpdeq, .mito, .bigBanger].contains(self) }

    /// A clone's sample period (µs): a steady 80 Hz (Mito's HX711 at its default 10 Hz); nil for the Tindeq, whose
    /// measured timing (≈ 11.4 ms, every 16th slot missing) `SessionRenderer` keeps.
    var clonePeriodMicros: UInt32? {
        switch self {
        case .hangman, .crimpdeq, .bigBanger: 12_500
        case .mito: 100_000
        default: nil
        }
    }

    /// The simulated Frez Dyno's calibration coefficient (kg per ADC count), and its unloaded ADC reading.
    public static let frezCalibration = 0.0001
    static let frezUnloadedADC = 84_000.0

    /// The profile a replay should choose for this device.
    public var profile: any DeviceProfile {
        switch self {
        case .progressor, .hangman, .crimpdeq, .mito, .bigBanger: TindeqProgressor()
        case .forceBoard: PitchSixForceBoard()
        case .entralpi: Entralpi()
        case .weightScale: WeightScale()
        case .whc06: WeihengWHC06()
        case .frezDyno: FrezDyno(calibration: Self.frezCalibration)
        case .cts500: CTS500()
        case .climbro: Climbro()
        case .motherboard: GriptoniteMotherboard()
        }
    }

    /// Samples per second on the air; the Progressor keeps its own measured timing (`SessionRenderer`).
    var rateHz: Double {
        switch self {
        case .progressor: 88
        case .hangman, .crimpdeq, .bigBanger: 80
        case .mito: 10
        case .forceBoard: 80
        case .entralpi: 10
        case .weightScale: 5
        case .whc06: 2
        case .frezDyno: 250
        // Assumed: no source gives the upload rate; griptrack sets the A/D rate to 80 Hz.
        case .cts500: 80
        // Assumed: no source gives the Climbro's rate.
        case .climbro: 10
        // What `S30` asks for.
        case .motherboard: 30
        }
    }

    /// How many samples one notification carries (host-stamped devices).
    var samplesPerFrame: Int {
        switch self {
        case .forceBoard: 3
        case .frezDyno: 9
        case .climbro: 2
        case .progressor, .entralpi, .weightScale, .whc06, .cts500, .motherboard: 1
        // One sample a notification, each clone's firmware says.
        case .hangman, .crimpdeq, .mito, .bigBanger: 1
        }
    }

    /// Whether the device is a transparent UART: its frames are bytes of one stream that the link cuts into
    /// notifications of at most 20 bytes wherever a connection event falls, splitting frames and merging them.
    var streamsBytes: Bool { self == .cts500 || self == .motherboard }

    /// One notification carrying these forces (kg), laid out as the device sends them; `millis` are the samples'
    /// device times (ms since START), for a device that sends them. For a byte-stream device, the frames' bytes.
    func frame(kilograms: [Double], millis: [UInt32]) -> [UInt8] {
        switch self {
        case .progressor, .hangman, .crimpdeq, .mito, .bigBanger:
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
        case .cts500:
            // Per sample `05 01 w3 w2 w1 w0 cs`: an unsigned big-endian count of 10 g (negatives clamped: unsigned),
            // the checksum the sum of the six bytes before it. Byte 1 is `01`, as in hangtime's fixture.
            var bytes: [UInt8] = []
            for kg in kilograms {
                let count = UInt32((max(kg, 0) * 100).rounded())
                bytes += Self.cts500Frame([0x05, 0x01] + (0..<4).map { UInt8(truncatingIfNeeded: count >> (24 - 8 * $0)) })
            }
            return bytes
        case .climbro:
            // Whole kilograms, one byte each, after the sensor marker F5; 36 goes as F6 (escaped: 0x24 is "$", which
            // puts Microchip's RN487x modules into command mode, inferred). Every 15th notification (3 s) starts with
            // the battery marker F0 and a reading (80 %: 112 + 0.8 · 118 = 206), and every 4th other one carries no
            // marker at all: the mode persists from the notification before.
            let index = Int(millis[0]) / 200
            var bytes: [UInt8] = []
            if index % 15 == 0 { bytes += [0xF0, 206] }
            if index % 15 == 0 || index % 4 != 3 { bytes.append(0xF5) }
            for kg in kilograms {
                let whole = UInt8(min(max(kg.rounded(), 0), 239))
                bytes.append(whole == 36 ? 0xF6 : whole)
            }
            return bytes
        case .motherboard:
            // One line per report: 16 bytes as 32 upper-case hex digits and CRLF. u16 LE sample number (the device's
            // ms clock in 33 ms steps: one per report), u16 LE battery charge 300 (hangtime's fixture; unit unknown),
            // int24 LE ADC of left, centre and right through the synthetic table (centre and right negative under
            // load), and the unused fourth channel.
            var text = ""
            for (kg, ms) in zip(kilograms, millis) {
                let number = UInt16(truncatingIfNeeded: ms / 33)
                var bytes: [UInt8] = [UInt8(number & 0xFF), UInt8(number >> 8), 0x2C, 0x01]
                for (cell, share) in Self.motherboardShares(totalKg: kg).enumerated() {
                    let adc = Self.motherboardADC(sensor: cell, kilograms: share) * (cell == 0 ? 1 : -1)
                    let bits = UInt32(bitPattern: Int32(adc)) & 0xFF_FFFF
                    bytes += [UInt8(bits & 0xFF), UInt8(bits >> 8 & 0xFF), UInt8(bits >> 16)]
                }
                bytes += [0, 0, 0]
                text += bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16, uppercase: true) }.joined() + "\r\n"
            }
            return Array(text.utf8)
        }
    }

    /// The simulated Motherboard's calibration table, sensor by sensor (left, centre, right, unused): four points of
    /// (kg, ADC) each, ascending, about 23 500 counts a kilogram (grippynotes' example point reads 47.3 kg at
    /// 1 112 352) and a little curved. Synthetic: no device's table is published.
    static let motherboardCalibration: [[(kilograms: Double, adc: Int)]] = [
        [(0, 8_000), (10, 243_500), (25, 596_000), (50, 1_182_000)],
        [(0, -5_000), (10, 229_000), (25, 580_500), (50, 1_166_000)],
        [(0, 3_500), (10, 238_000), (25, 590_000), (50, 1_179_500)],
        [(0, 0), (10, 235_000), (25, 587_500), (50, 1_175_000)],
    ]

    /// The `C` answer: `sensor,point,mass,adc` for every point, CRLF each.
    static var motherboardCalibrationText: [UInt8] {
        var text = ""
        for (sensor, points) in motherboardCalibration.enumerated() {
            for (point, entry) in points.enumerated() {
                text += "\(sensor),\(point),\(String(format: "%.1f", entry.kilograms)),\(entry.adc)\r\n"
            }
        }
        return Array(text.utf8)
    }

    /// How a hanging person's weight falls on the three cells: 46 % left, 10 % centre, 44 % right (a slight
    /// asymmetry, as a real hang has).
    static func motherboardShares(totalKg: Double) -> [Double] { [0.46, 0.10, 0.44].map { $0 * totalKg } }

    /// The ADC reading that `kilograms` gives on a sensor: the table's segments inverted, the end ones extended.
    static func motherboardADC(sensor: Int, kilograms: Double) -> Int {
        let points = motherboardCalibration[sensor]
        var upper = 1
        while upper < points.count - 1, kilograms >= points[upper].kilograms { upper += 1 }
        let (low, high) = (points[upper - 1], points[upper])
        let adc = Double(low.adc) + (kilograms - low.kilograms) / (high.kilograms - low.kilograms) * Double(high.adc - low.adc)
        return Int(adc.rounded())
    }

    /// A CTS500 frame: `body` and its additive checksum.
    static func cts500Frame(_ body: [UInt8]) -> [UInt8] { body + [body.reduce(0, &+)] }

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
    var controlValue: UInt16? { profile.controlCharacteristicUUID == nil || self == .mito ? nil : 0x0011 }
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
        // Mito declares only the data point (`scales.h`).
        if let control = profile.controlCharacteristicUUID, self != .mito {
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
