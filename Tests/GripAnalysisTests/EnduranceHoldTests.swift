import GripAnalysis
import Testing

@Suite("Endurance hold: time to failure")
struct EnduranceHoldTests {
    /// 80 Hz samples of `force(seconds)` over `seconds`.
    static func trace(seconds: Double, _ force: (Double) -> Double) -> [ForceSample] {
        stride(from: 0.0, through: seconds, by: 0.0125).map {
            ForceSample(micros: Int64(($0 * 1_000_000).rounded()), kilograms: Float(force($0)))
        }
    }

    @Test("a hold that fades, dips briefly and then lets go fails where force went under 20 % of its peak for good")
    func holdToFailure() throws {
        // Onset at 1 s, 30 kg fading to 20 kg by 40 s, a 0.5 s dip to 2 kg at 20 s, released at 40 s.
        let samples = Self.trace(seconds: 45) { t in
            if t < 1 || t >= 40 { return 0.3 }
            if (20..<20.5).contains(t) { return 2 }
            return 30 - 10 * (t - 1) / 39
        }
        let hold = try #require(EnduranceHold(trace: samples, onsetMicros: 1_000_000))
        #expect(abs(hold.peakKg - 30) < 0.01)
        let failure = try #require(hold.timeToFailureMicros)
        #expect(abs(failure - 39_000_000) <= 12_500, "\(failure)")
    }

    @Test("a hold still above the level when the trace ends has no time to failure")
    func stillHolding() throws {
        let hold = try #require(EnduranceHold(trace: Self.trace(seconds: 10) { _ in 25 }, onsetMicros: 0))
        #expect(hold.timeToFailureMicros == nil)
    }

    @Test("a single-sample spike does not raise the peak the failure level is drawn from")
    func spikeIgnored() throws {
        var samples = Self.trace(seconds: 14) { t in t < 10 ? 20 : 10 }
        samples[100].kilograms = 60
        let hold = try #require(EnduranceHold(trace: samples, onsetMicros: 0))
        #expect(hold.peakKg == 20)
        // 10 kg is above 20 % of 20 kg; taken as the peak, the spike would have put the level at 12 kg and failed it.
        #expect(hold.timeToFailureMicros == nil)
    }
}
