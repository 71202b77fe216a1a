import GripAnalysis
import Testing

/// A person's own correction of a sensor (docs/calibration.md): the fit from two readings, its limits, and the
/// steady reading each step takes.
@Suite("Force correction and steady readings")
struct ForceCorrectionTests {
    @Test("two readings give the correction that reads 0 unloaded and the known weight loaded")
    func fitReadsTheKnownWeight() throws {
        let correction = try ForceCorrection.fit(unloaded: 0.15, loaded: 19.65, knownKilograms: 20)
        #expect(abs(correction.scale - 20 / 19.5) < 1e-12)
        #expect(abs(Double(correction.corrected(0.15))) < 1e-5)
        #expect(abs(Double(correction.corrected(19.65)) - 20) < 1e-4)
        #expect(abs(correction.raw(20) - 19.65) < 1e-9)
    }

    @Test("readings that give no usable correction are refused with the reason", arguments: [
        (0.1, 0.3, 20.0, "hang the weight from the sensor itself"),
        (0.0, 5.0, 20.0, "a scale of 4.0 is outside 0.5–2.0"),
        (0.0, 20.0, 0.5, "the known weight must be between 1 and 500 kg"),
        (-60.0, -40.0, 20.0, "an offset of 60.0 kg is outside"),
    ])
    func refusals(unloaded: Double, loaded: Double, known: Double, reason: String) {
        #expect {
            try ForceCorrection.fit(unloaded: unloaded, loaded: loaded, knownKilograms: known)
        } throws: { error in
            "\(error)".contains(reason)
        }
    }

    @Test("a reading counts once a whole window holds within tolerance; a sway or a short window does not")
    func steadyReading() {
        var reading = SteadyReading(windowMicros: 2_000_000)
        // 80 Hz, 1.5 s at 19.6 ± 0.05 kg: not yet a whole window.
        for index in 0..<120 { reading.add(micros: Int64(index) * 12_500, kilograms: 19.6 + (index % 2 == 0 ? 0.05 : -0.05)) }
        #expect(reading.steadyKilograms == nil)
        for index in 120..<200 { reading.add(micros: Int64(index) * 12_500, kilograms: 19.6 + (index % 2 == 0 ? 0.05 : -0.05)) }
        #expect(abs((reading.steadyKilograms ?? 0) - 19.6) < 0.01)
        // A swing of 1 kg inside the window: not steady until it has left the window.
        reading.add(micros: 200 * 12_500, kilograms: 20.6)
        #expect(reading.steadyKilograms == nil)
        for index in 201..<400 { reading.add(micros: Int64(index) * 12_500, kilograms: 19.6) }
        #expect(abs((reading.steadyKilograms ?? 0) - 19.6) < 1e-9)
        reading.reset()
        #expect(reading.steadyKilograms == nil)
    }
}
