import GripAnalysis
import Testing

@Suite("Spike rule: a single sample never becomes a peak")
struct SpikeRuleTests {
    /// A 3 s hold at 20 kg sampled every `interval` µs, with one sample at `spikeKg` in the middle.
    static func hold(interval: Int64, spikeKg: Float) -> [ForceSample] {
        let count = Int(3_000_000 / interval)
        return (0...count).map { index in
            ForceSample(micros: Int64(index) * interval, kilograms: index == count / 2 ? spikeKg : 20)
        }
    }

    @Test("at 80 Hz a 45 kg sample between two 20 kg ones is a spike: the peak stays 20 kg")
    func spikeAt80Hz() throws {
        let trace = Self.hold(interval: 12_500, spikeKg: 45)
        let metrics = try #require(EffortMetrics(trace: trace, startMicros: 0, endMicros: 3_000_000))
        #expect(metrics.peakKg == 20)
        #expect(EffortMetrics.isSpike(trace, at: trace.count / 2))
    }

    @Test("a step of 5 kg or less, or two high samples in a row, is force, not a spike")
    func smallStepsAndPlateausCount() throws {
        let step = Self.hold(interval: 12_500, spikeKg: 25)
        #expect(try #require(EffortMetrics(trace: step, startMicros: 0, endMicros: 3_000_000)).peakKg == 25)
        var twin = Self.hold(interval: 12_500, spikeKg: 45)
        twin[twin.count / 2 + 1].kilograms = 45
        #expect(try #require(EffortMetrics(trace: twin, startMicros: 0, endMicros: 3_000_000)).peakKg == 45)
    }

    @Test("at 10 Hz one sample may be a whole quick pull: it is kept")
    func slowDevicesKeepEverySample() throws {
        let trace = Self.hold(interval: 100_000, spikeKg: 45)
        #expect(try #require(EffortMetrics(trace: trace, startMicros: 0, endMicros: 3_000_000)).peakKg == 45)
    }
}
