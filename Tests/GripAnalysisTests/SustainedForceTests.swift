import GripAnalysis
import Testing

@Suite("MVC-7 and fatigue index")
struct SustainedForceTests {
    /// Samples every 12.5 ms (80 Hz) from `from` to `to` seconds, force `kg(t)`.
    static func trace(from: Double, to: Double, _ kg: (Double) -> Double) -> [ForceSample] {
        stride(from: from, through: to, by: 0.0125).map {
            ForceSample(micros: Int64(($0 * 1_000_000).rounded()), kilograms: Float(kg($0)))
        }
    }

    @Test("a steady 20 kg hang of 10 s has an MVC-7 of 20 kg")
    func steadyHang() throws {
        let best = try #require(SustainedForce.best(of: Self.trace(from: 0, to: 10) { _ in 20 }, windowMicros: 7_000_000))
        #expect(abs(best.meanKg - 20) < 1e-6)
    }

    @Test("a hang that fades finds its best 7 s at the start, and a ramp's mean is exact")
    func fadingHang() throws {
        // 30 kg falling by 1 kg/s over 12 s: the best 7 s are 0–7 s, mean 30 − 3.5.
        let best = try #require(SustainedForce.best(of: Self.trace(from: 0, to: 12) { 30 - $0 }, windowMicros: 7_000_000))
        #expect(abs(best.meanKg - 26.5) < 1e-4)
        #expect(best.startMicros == 0)
        // Rising: the best window ends at the last sample and starts between samples (interpolated).
        let rising = try #require(SustainedForce.best(
            of: Self.trace(from: 0, to: 10.005) { 10 + $0 }, windowMicros: 7_000_000))
        #expect(abs(rising.meanKg - (10 + (3.0 + 10.0) / 2)) < 1e-3)
    }

    @Test("a trace shorter than the window has none; a window never spans a gap without samples")
    func shortTraceAndGaps() {
        #expect(SustainedForce.best(of: Self.trace(from: 0, to: 6.9) { _ in 20 }, windowMicros: 7_000_000) == nil)
        // 5 s at 40 kg, 3 s with no samples, 5 s at 40 kg: no 7 s window is measured throughout.
        let gapped = Self.trace(from: 0, to: 5) { _ in 40 } + Self.trace(from: 8, to: 13) { _ in 40 }
        #expect(SustainedForce.best(of: gapped, windowMicros: 7_000_000) == nil)
        // With 9 s after the gap, the window lies there.
        let longer = Self.trace(from: 0, to: 5) { _ in 60 } + Self.trace(from: 8, to: 17) { _ in 30 }
        #expect(abs((SustainedForce.best(of: longer, windowMicros: 7_000_000)?.meanKg ?? 0) - 30) < 1e-6)
    }

    @Test("MVC-7 lies inside a hold of 7 s: none after a 5 s pull; a hang with a brief dip still counts as held")
    func mvc7InsideAHold() throws {
        // A 5 s pull at 40 kg, then 10 s of rest at 0.2 kg: the whole trace has 7 s windows, no hold has one.
        let short = Self.trace(from: 0, to: 15) { $0 <= 5 ? 40 : 0.2 }
        #expect(SustainedForce.best(of: short, windowMicros: 7_000_000) != nil)
        #expect(MaximumSustainedForce.best(of: short, efforts: [(0, 5_000_000)]) == nil)
        // 4.5 s at 30 kg, a 0.5 s dip the segmenter cut two efforts at, 4.5 s more: one 9.5 s hold.
        let dipped = Self.trace(from: 0, to: 12) { $0 > 4.5 && $0 < 5 ? 2 : $0 <= 9.5 ? 30 : 0.2 }
        let held = try #require(MaximumSustainedForce.best(
            of: dipped, efforts: [(0, 4_500_000), (5_000_000, 9_500_000)]))
        #expect(held.meanKg > 27 && held.meanKg < 30)
        #expect(held.startMicros >= 0 && held.startMicros + 7_000_000 <= 9_500_000)
        // The same pulls 2 s apart are two holds of 4.5 s: no MVC-7.
        #expect(MaximumSustainedForce.best(of: dipped, efforts: [(0, 4_500_000), (6_500_000, 11_000_000)]) == nil)
        // A 7 s rep cut at 6.9 s by the on and off levels (its ramps left out) is still a 7 s hang.
        let rep = Self.trace(from: 0, to: 10) { $0 >= 1 && $0 <= 8 ? 25 : 0.2 }
        #expect(MaximumSustainedForce.best(of: rep, efforts: [(1_050_000, 7_950_000)]) != nil)
    }

    @Test("fatigue index: first to last complete rep peak, as a percentage; nil under three reps")
    func fatigue() {
        #expect(FatigueIndex.percent(peaks: [40, 36, 30]) == 25)
        #expect(FatigueIndex.percent(peaks: [40, 30]) == nil)
        #expect(FatigueIndex.percent(peaks: [20, 22, 24]) == -20)
    }
}
