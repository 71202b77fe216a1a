import GripSimulator
import GripWire
import Testing

/// The profiles of devices that send no time: their frames, written byte by byte from the published layouts
/// (docs/devices.md), and the clock that times their samples on arrival.
@Suite("Host-stamped device profiles")
struct HostStampedProfileTests {
    private func decode<Profile: DeviceProfile>(
        _ profile: Profile, _ frames: [(bytes: [UInt8], hostMicros: Int64)]
    ) -> (outcomes: [FrameOutcome], samples: [RawSample]) {
        var decoder = profile.makeDecoder()
        var samples: [RawSample] = []
        let outcomes = frames.map { frame in
            frame.bytes.withUnsafeBytes { decoder.decode($0, hostMicros: frame.hostMicros) { samples.append($0) } }
        }
        return (outcomes, samples)
    }

    @Test("Force Board: a u16 big-endian count, then 3-byte pound values read as b0·32768 + b1·256 + b2")
    func forceBoardFrame() {
        // 2 samples: 0x00 0x00 0x2C = 44 lb; 0x01 0x00 0x05 = 32768 + 5 = 32773 lb (the odd multiplier).
        let (outcomes, samples) = decode(PitchSixForceBoard(), [([0x00, 0x02, 0x00, 0x00, 0x2C, 0x00, 0x00, 0x16], 1_000_000)])
        #expect(outcomes == [.samples(2)])
        #expect(samples.map(\.kilograms) == [Float(44) * 0.453_592, Float(22) * 0.453_592])
        let (bad, none) = decode(PitchSixForceBoard(), [
            ([0x00, 0x02, 0x00, 0x00, 0x2C], 1), ([0x00, 0x00], 2), ([0x00], 3),
            ([0x00, 0x01, 0x01, 0x00, 0x05], 4),  // 32 773 lb: no pull weighs 14.9 t
        ])
        #expect(bad == [.rejected(.lengthMismatch), .rejected(.lengthMismatch), .rejected(.short), .rejected(.outOfRange)])
        #expect(none.isEmpty)
    }

    @Test("Force Board: STOP/START/TARE are Device Mode bytes 0x07/0x04/0x05, and read back from a capture")
    func forceBoardCommands() {
        let board = PitchSixForceBoard()
        #expect(board.encode(.startMeasurement) == [0x04])
        #expect(board.encode(.tare) == [0x05])
        #expect(board.encode(.stopMeasurement) == [0x07])
        #expect(board.encode(.battery) == nil)
        #expect(board.command(fromControlWrite: [0x04]) == .startMeasurement)
        #expect(board.command(fromControlWrite: [0x06]) == nil)
        #expect(board.lifecycle.whenReady == [.startMeasurement])
        #expect(!board.controlSharesDataService)
    }

    @Test("Entralpi: one big-endian u16 of hundredths of a kilogram per notification")
    func entralpiFrame() {
        let (outcomes, samples) = decode(Entralpi(), [([0x0B, 0xB8], 1_000_000), ([0x00, 0x19], 1_100_000), ([0x01], 1_200_000), ([0, 0, 0], 1_300_000)])
        #expect(outcomes == [.samples(1), .samples(1), .rejected(.short), .rejected(.lengthMismatch)])
        #expect(samples.map(\.kilograms) == [30, 0.25])
        #expect(Entralpi().lifecycle == .passive)
    }

    @Test("SIG Weight Measurement: SI and imperial units, optional fields skipped, 'unsuccessful' and reserved flags refused")
    func weightMeasurement() {
        let dateTime: [UInt8] = [0xEA, 0x07, 11, 24, 5, 6, 7]
        let (outcomes, samples) = decode(WeightScale(), [
            ([0x00, 0xA0, 0x0F], 1_000_000),                        // 4000 × 0.005 kg = 20 kg
            ([0x01, 0xD0, 0x07], 1_500_000),                        // 2000 × 0.01 lb = 20 lb
            ([0x0E, 0xA0, 0x0F] + dateTime + [0x01, 0xDC, 0x00, 0x08, 0x07], 2_000_000),  // time, user, BMI+height
            ([0x00, 0xFF, 0xFF], 2_500_000),                        // measurement unsuccessful
            ([0x10, 0xA0, 0x0F], 3_000_000),                        // reserved flag bit
            ([0x02, 0xA0, 0x0F], 3_500_000),                        // announces a time stamp it lacks
        ])
        #expect(outcomes == [.samples(1), .samples(1), .samples(1), .rejected(.outOfRange), .rejected(.unknownCode),
                             .rejected(.lengthMismatch)])
        #expect(samples.map(\.kilograms) == [20, Float(2000) * 0.01 * 0.453_592, 20])
        #expect(WeightScale().transport == .indicate)
    }

    @Test("the table: names win over services (the Entralpi advertises 0x181D), a nameless 0x181D device is a SIG scale")
    func matching() {
        #expect(DeviceProfiles.matching(name: "ENTRALPI-42", serviceUUIDs: ["0000181d-0000-1000-8000-00805f9b34fb"])?.identifier == "entralpi")
        #expect(DeviceProfiles.matching(name: "Body Scale", serviceUUIDs: ["0000181D-0000-1000-8000-00805F9B34FB"])?.identifier == "weightscale")
        #expect(DeviceProfiles.matching(name: "Force Board 7", serviceUUIDs: [])?.identifier == "forceboard")
        #expect(Set(DeviceProfiles.identifiers).count == DeviceProfiles.all.count)
    }

    @Test("host clock: arrival jitter of ±15 ms leaves the samples evenly spaced at the device's rate")
    func jitterIsSmoothed() {
        var clock = HostStampedClock(nominalHz: 80)
        var generator = SplitMix64(seed: 80)  // seeded: a failure replays the same arrivals
        var stamps: [Int64] = []
        // 3 samples every 37.5 ms, each frame arriving 0–15 ms late (a connection event's wait).
        for frame in 0..<400 {
            let arrival = 1_000_000 + Int64(frame) * 37_500 + Int64.random(in: 0...15_000, using: &generator)
            let times = clock.place(count: 3, arrivedAt: arrival)
            for index in 0..<3 { stamps.append(Int64(times.firstMicros) + Int64(index) * Int64(times.stepMicros)) }
        }
        let steps = zip(stamps.dropFirst(), stamps).map { $0 - $1 }
        #expect(steps.allSatisfy { $0 > 0 }, "time went backwards")
        // After settling, every step is within 2 ms of 12.5 ms (arrivals alone would give 0–27 ms steps).
        #expect(steps.dropFirst(60).allSatisfy { abs($0 - 12_500) < 2_000 }, "\(steps.dropFirst(60).min()!)…\(steps.dropFirst(60).max()!)")
        // And time keeps pace with the host: 1200 samples at 80 Hz are 15 s.
        #expect(abs(stamps.last! - stamps.first! - 15_000_000) < 100_000)
    }

    @Test("host clock: a second without notifications stays a second; a device faster than published is followed")
    func gapsAndRealRate() {
        var clock = HostStampedClock(nominalHz: 10)
        var last: Int64 = 0
        for frame in 0..<20 { last = Int64(clock.place(count: 1, arrivedAt: Int64(frame) * 100_000).firstMicros) }
        let afterGap = Int64(clock.place(count: 1, arrivedAt: 19 * 100_000 + 1_300_000).firstMicros)
        #expect(afterGap - last == 1_300_000)

        // Published 2 Hz, really 5 Hz: stamps settle on 200 ms steps and never run ahead of the arrivals.
        var scale = HostStampedClock(nominalHz: 2)
        var stamps: [Int64] = []
        for frame in 0..<300 { stamps.append(Int64(scale.place(count: 1, arrivedAt: 10_000_000 + Int64(frame) * 200_000).firstMicros)) }
        let settled = zip(stamps.dropFirst(200), stamps.dropFirst(199)).map { $0 - $1 }
        #expect(settled.allSatisfy { abs($0 - 200_000) < 20_000 }, "\(settled.min()!)…\(settled.max()!)")
        #expect(abs(stamps.last! - 299 * 200_000) < 250_000)
    }

    @Test("WH-C06: manufacturer data bytes 10–11 are signed big-endian hundredths, byte 14's low nibble the unit")
    func whc06Advertisement() {
        func data(_ weight: UInt16, unit: UInt8) -> [UInt8] {
            var bytes = [UInt8](repeating: 0, count: 17)
            bytes[10] = UInt8(weight >> 8)
            bytes[11] = UInt8(weight & 0xFF)
            bytes[14] = 0x10 | unit
            return bytes
        }
        let (outcomes, samples) = decode(WeihengWHC06(), [
            (data(1_520, unit: 1), 1_000_000),           // 15.20 kg
            (data(0xFFCE, unit: 1), 1_500_000),          // −0.50 kg: a tared scale reads below zero
            (data(4_410, unit: 2), 2_000_000),           // 44.10 lb
            (data(1_000, unit: 4), 2_500_000),           // 10.00 jin = 5 kg
            (data(1_000, unit: 9), 3_000_000),           // no such unit
            (Array(data(1_000, unit: 1).prefix(14)), 3_500_000),
        ])
        #expect(outcomes == [.samples(1), .samples(1), .samples(1), .samples(1), .rejected(.unknownCode), .rejected(.short)])
        #expect(samples.map(\.kilograms) == [15.2, -0.5, Float(44.1) * 0.453_592, 5])
        #expect(WeihengWHC06().transport == .advertisement)
        #expect(DeviceProfiles.matching(name: "IF_B7", serviceUUIDs: [])?.identifier == "whc06")
    }

    @Test("Frez Dyno: 01 00 + nine (int32 ADC, u32 ms); forces are coefficient × (ADC − the mean of the first 100)")
    func frezDyno() {
        func frame(_ adcs: [Int32], firstMillis: UInt32) -> [UInt8] {
            var bytes: [UInt8] = [0x01, 0x00]
            for (index, adc) in adcs.enumerated() {
                withUnsafeBytes(of: adc.littleEndian) { bytes += $0 }
                withUnsafeBytes(of: (firstMillis + UInt32(index) * 4).littleEndian) { bytes += $0 }
            }
            return bytes
        }
        let dyno = FrezDyno(calibration: 0.0001)
        var decoder = dyno.makeDecoder()
        decoder.noteCommandSent(.startMeasurement)
        var samples: [RawSample] = []
        var outcomes: [FrameOutcome] = []
        // 12 frames of 9 unloaded samples at 80 000 ± 10 (the tare is taken over the first 100), then 200 000.
        for index in 0..<12 {
            let adcs: [Int32] = (0..<9).map { sample -> Int32 in sample % 2 == 0 ? 80_010 : 79_990 }
            let bytes = frame(adcs, firstMillis: UInt32(index * 36 + 4))
            outcomes.append(bytes.withUnsafeBytes { decoder.decode($0, hostMicros: 0) { samples.append($0) } })
        }
        let loaded = frame(Array(repeating: 280_000, count: 9), firstMillis: 12 * 36 + 4)
        outcomes.append(loaded.withUnsafeBytes { decoder.decode($0, hostMicros: 0) { samples.append($0) } })
        // A repeat of the last frame, a stale one, a short one, a wrong header.
        outcomes.append(loaded.withUnsafeBytes { decoder.decode($0, hostMicros: 0) { samples.append($0) } })
        let wrongHeader = [0x02, 0x00] + Array(loaded.dropFirst(2))
        for bad in [frame(Array(repeating: 80_000, count: 9), firstMillis: 40), Array(loaded.prefix(73)), wrongHeader] {
            outcomes.append(bad.withUnsafeBytes { decoder.decode($0, hostMicros: 0) { samples.append($0) } })
        }
        #expect(outcomes.prefix(13).allSatisfy { $0 == .samples(9) })
        #expect(Array(outcomes.suffix(4)) == [.rejected(.duplicate), .rejected(.duplicate), .rejected(.lengthMismatch), .rejected(.unknownCode)])
        #expect(samples.count == 13 * 9)
        // Unloaded reads about zero (the ±10 counts of noise around a tare within 2 counts: under 1.5 g); loaded:
        // 0.0001 × (280 000 − 80 000) = 20 kg.
        #expect(samples.prefix(108).allSatisfy { abs($0.kilograms) < 0.0015 })
        #expect(samples.suffix(9).allSatisfy { abs($0.kilograms - 20) < 0.0015 })
        let loadedMillis: [UInt32] = (0..<9).map { index -> UInt32 in UInt32(12 * 36 + 4 + index * 4) }
        #expect(samples.suffix(9).map(\.deviceMicros) == loadedMillis.map { $0 * 1_000 })
        #expect(dyno.encode(.startMeasurement) == [0x01, 0x00])
        #expect(dyno.encode(.sleep) == [0xFF, 0x00])
        #expect(dyno.command(fromControlWrite: [0x02, 0x00]) == .stopMeasurement)
    }

    @Test("Frez Dyno without a coefficient decodes nothing: every sample is non-finite")
    func frezWithoutCalibration() {
        var bytes: [UInt8] = [0x01, 0x00]
        for index in 0..<9 { bytes += [0x10, 0x27, 0, 0] + [UInt8(4 * (index + 1)), 0, 0, 0] }
        var decoder = FrezDyno().makeDecoder()
        let outcome = bytes.withUnsafeBytes { decoder.decode($0, hostMicros: 0) { _ in } }
        #expect(outcome == .rejected(.nonFinite))
        #expect((DeviceProfiles.named("frez", calibration: 0.0002) as? FrezDyno)?.calibration == 0.0002)
    }

    @Test("only the Frez Dyno needs a calibration coefficient; every other profile is complete without one")
    func calibrationIsTheFrezDynosAlone() {
        let lacking = DeviceProfiles.all.filter(\.lacksCalibration).map(\.identifier)
        #expect(lacking == ["frez"])
        #expect(DeviceProfiles.all.allSatisfy { !$0.calibrated(0.0001).lacksCalibration })
        #expect(DeviceProfiles.named("progressor", calibration: 0.0001)?.identifier == "progressor")
    }
}
