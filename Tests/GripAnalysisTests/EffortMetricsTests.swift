import GripAnalysis
import Testing

/// Builds a trace from (seconds, kg) pairs.
private func trace(_ points: [(Double, Float)]) -> [ForceSample] {
    points.map { ForceSample(micros: Int64(($0.0 * 1e6).rounded()), kilograms: $0.1) }
}

private func isClose(_ a: Double?, _ b: Double, tolerance: Double = 1e-6) -> Bool {
    guard let a else { return false }
    return abs(a - b) <= tolerance
}

@Suite("EffortMetrics")
struct EffortMetricsTests {
    @Test("a triangle pulse has the hand-computed peak, mean, impulse, time to peak and rfd2080")
    func trianglePulse() throws {
        // 0 kg at 0 s → 10 kg at 1 s → 0 kg at 2 s, sampled every 0.5 s.
        let samples = trace([(0, 0), (0.5, 5), (1, 10), (1.5, 5), (2, 0)])
        let m = try #require(EffortMetrics(trace: samples, startMicros: 0, endMicros: 2_000_000))
        #expect(m.peakKg == 10)
        #expect(m.peakMicros == 1_000_000)
        #expect(m.timeToPeakMicros == 1_000_000)
        #expect(isClose(m.impulseKgSeconds, 10))  // ½ · 2 s · 10 kg
        #expect(abs(m.meanKg - 5) < 1e-6)  // 10 kg·s / 2 s
        #expect(m.sampleCount == 5)
        // t20 = 0.2 s (2 kg), t80 = 0.8 s (8 kg): 0.6 · 10 / 0.6 s = 10 kg/s; but samples 0.5 s apart are too
        // sparse for the effort to report it.
        #expect(isClose(EffortMetrics.rfd2080(of: samples, peakKg: m.peakKg), 10))
        #expect(m.rfdKgPerSecond == nil)
    }

    @Test("RFD 20–80 is reported from 50 samples a second up, and left out below: the same pull at 100, 50 and 40 Hz")
    func rfdNeedsFineSampling() throws {
        // A 0 → 20 kg ramp over 0.5 s, held to 2 s: RFD 20–80 = 0.6 · 20 / 0.3 s = 40 kg/s at any rate that resolves it.
        func pull(hz: Double) -> [ForceSample] {
            (0...Int(2 * hz)).map { index in
                let t = Double(index) / hz
                return ForceSample(micros: Int64((t * 1e6).rounded()), kilograms: Float(min(20, 40 * t)))
            }
        }
        for hz in [100.0, 50.0] {
            let m = try #require(EffortMetrics(trace: pull(hz: hz), startMicros: 0, endMicros: 2_000_000))
            #expect(isClose(m.rfdKgPerSecond, 40, tolerance: 1e-6), "\(hz) Hz")
        }
        let slow = try #require(EffortMetrics(trace: pull(hz: 40), startMicros: 0, endMicros: 2_000_000))
        #expect(slow.rfdKgPerSecond == nil, "40 Hz: 25 ms between samples")
    }

    @Test("rfd2080 interpolates the first upward crossings between sparse samples")
    func rfdInterpolatesBetweenSamples() {
        // Fmax = 10: 2 kg is crossed at 0.25 s (0 → 4 over 0.5 s); 8 kg between 0.5 s (4) and 1.0 s (10):
        // 0.5 + (8 − 4) / 6 · 0.5 = 0.8333… s.  rfd = 6 / 0.58333… = 10.285714… kg/s.
        let samples = trace([(0, 0), (0.5, 4), (1, 10), (1.5, 9)])
        #expect(isClose(EffortMetrics.rfd2080(of: samples), 6 / (0.5 + 4.0 / 6 * 0.5 - 0.25)))
        #expect(isClose(EffortMetrics.rfd2080(of: samples), 10.285_714_285_7, tolerance: 1e-9))
    }

    @Test("a trapezoid pulse cut by an interpolated window integrates only inside the window")
    func trapezoidWindow() throws {
        // 0 → 20 kg over 1 s, hold 2 s, 20 → 0 over 1 s; samples every 0.5 s.
        let samples = trace([(0, 0), (0.5, 10), (1, 20), (1.5, 20), (2, 20), (2.5, 20), (3, 20), (3.5, 10), (4, 0)])
        let whole = try #require(EffortMetrics(trace: samples, startMicros: 0, endMicros: 4_000_000))
        #expect(isClose(whole.impulseKgSeconds, 60))  // 20 · (0.5 + 2 + 0.5)
        #expect(abs(whole.meanKg - 15) < 1e-5)

        // Window [0.25 s, 3.75 s]: F = 5 kg at both ends; two corner triangles of 0.25 s · 5 kg / 2 are cut off.
        let cut = try #require(EffortMetrics(trace: samples, startMicros: 250_000, endMicros: 3_750_000))
        #expect(isClose(cut.impulseKgSeconds, 60 - 2 * 0.625))
        #expect(abs(Double(cut.meanKg) - 58.75 / 3.5) < 1e-5)  // 16.7857 kg
        #expect(cut.peakKg == 20)
        #expect(cut.peakMicros == 1_000_000)  // first sample at the peak
        #expect(cut.timeToPeakMicros == 750_000)
        #expect(cut.sampleCount == 7)  // 0.5 … 3.5 s
        // Rising edge before the window still counts for rfd: 4 kg at 0.2 s, 16 kg at 0.8 s → 12 / 0.6 (too
        // sparse for the effort to report).
        #expect(isClose(EffortMetrics.rfd2080(of: samples, peakKg: cut.peakKg), 20))
        #expect(cut.rfdKgPerSecond == nil)
    }

    @Test("a pulse on a 5 kg pre-load uses the raw Fmax, not the baseline-subtracted one")
    func preloadedPulse() throws {
        let samples = trace([
            (0, 5), (0.1, 5), (0.2, 5), (0.3, 8), (0.4, 16), (0.5, 26), (0.6, 30), (0.7, 30), (0.8, 20), (0.9, 5),
        ])
        let m = try #require(EffortMetrics(trace: samples, startMicros: 300_000, endMicros: 850_000))
        #expect(m.peakKg == 30)
        #expect(m.peakMicros == 600_000)
        #expect(m.timeToPeakMicros == 300_000)
        // Fmax = 30: 6 kg between 0.2 s (5) and 0.3 s (8) → 0.2333… s; 24 kg between 0.4 s (16) and 0.5 s (26)
        // → 0.48 s; rfd = 18 / 0.246666… = 72.97297… kg/s. (Baseline-subtracted would give 90.9 kg/s.)
        let rfd = EffortMetrics.rfd2080(of: samples, peakKg: m.peakKg)
        #expect(isClose(rfd, 18 / (0.48 - (0.2 + 1.0 / 30)), tolerance: 1e-6))
        #expect(isClose(rfd, 72.972_973, tolerance: 1e-5))
        #expect(m.rfdKgPerSecond == nil, "10 samples a second: too sparse for RFD")
        // Impulse over [0.3, 0.85], F(0.85) = 12.5 kg: trapezoids 1.2 + 2.1 + 2.8 + 3.0 + 2.5 + (20 + 12.5) / 2 · 0.05
        // = 12.4125 kg·s; mean = 12.4125 / 0.55 s = 22.568 kg.
        #expect(isClose(m.impulseKgSeconds, 12.4125, tolerance: 1e-9))
        #expect(abs(Double(m.meanKg) - 12.4125 / 0.55) < 1e-4)
    }

    @Test("rfd2080 is undefined when the trace starts above 20 % of its peak or never rises")
    func rfdUndefined() {
        #expect(EffortMetrics.rfd2080(of: trace([(0, 5), (0.1, 10), (0.2, 20)])) == nil)  // 4 kg never crossed upward
        #expect(EffortMetrics.rfd2080(of: trace([(0, 0), (0.1, 0), (0.2, 0)])) == nil)  // Fmax = 0
        #expect(EffortMetrics.rfd2080(of: trace([(0, -3), (0.1, -1)])) == nil)  // negative force
        #expect(EffortMetrics.rfd2080(of: [ForceSample]()) == nil)
    }

    @Test("an empty trace or a reversed window gives no metrics, a zero-length window gives F at that instant")
    func degenerateWindows() throws {
        #expect(EffortMetrics(trace: [ForceSample](), startMicros: 0, endMicros: 1) == nil)
        let samples = trace([(0, 0), (1, 10)])
        #expect(EffortMetrics(trace: samples, startMicros: 2, endMicros: 1) == nil)
        let instant = try #require(EffortMetrics(trace: samples, startMicros: 500_000, endMicros: 500_000))
        #expect(instant.meanKg == 5)
        #expect(instant.impulseKgSeconds == 0)
        #expect(instant.peakKg == 5)
    }
}
