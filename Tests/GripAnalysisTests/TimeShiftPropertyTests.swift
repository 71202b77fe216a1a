import GripAnalysis
import PropertyBased
import Testing

/// The figures depend on the force and on time differences only: shifting a whole trace in time changes none of them.
@Suite("Metrics are invariant under time shifts")
struct TimeShiftPropertyTests {
    static func trace(_ steps: [Int64], _ forces: [Float], origin: Int64) -> [ForceSample] {
        var micros = origin
        return zip(steps, forces).map { step, kg in
            micros += step
            return ForceSample(micros: micros, kilograms: kg)
        }
    }

    static func close(_ a: Double?, _ b: Double?, tolerance: Double = 1e-6) -> Bool {
        switch (a, b) {
        case (nil, nil): true
        case (let a?, let b?): abs(a - b) <= tolerance * max(1, abs(a), abs(b))
        default: false
        }
    }

    @Test("effort metrics, MVC-7, windowed RFD and time to failure move with the trace and change nothing else")
    func shiftInvariance() async {
        await propertyCheck(
            count: 200, input: Gen.int64(in: 5_000...30_000).array(of: 40...400), Gen.float(in: 0...60).array(of: 400),
            Gen.int64(in: -1_000_000_000_000...1_000_000_000_000)
        ) { steps, forces, shift in
            let base = Self.trace(steps, forces, origin: 0)
            let moved = base.map { ForceSample(micros: $0.micros + shift, kilograms: $0.kilograms) }
            let (start, end) = (base[base.count / 4].micros, base[base.count * 3 / 4].micros)
            let a = EffortMetrics(trace: base, startMicros: start, endMicros: end)
            let b = EffortMetrics(trace: moved, startMicros: start + shift, endMicros: end + shift)
            #expect(a?.peakKg == b?.peakKg)
            #expect(a?.timeToPeakMicros == b?.timeToPeakMicros)
            #expect(Self.close(a.map { Double($0.meanKg) }, b.map { Double($0.meanKg) }))
            #expect(Self.close(a?.impulseKgSeconds, b?.impulseKgSeconds))
            #expect(Self.close(a?.rfdKgPerSecond, b?.rfdKgPerSecond, tolerance: 1e-4))
            let sustainedA = SustainedForce.best(of: base, windowMicros: 1_000_000)
            let sustainedB = SustainedForce.best(of: moved, windowMicros: 1_000_000)
            #expect(Self.close(sustainedA?.meanKg, sustainedB?.meanKg))
            #expect(Self.close(
                WindowedRFD.rfd(of: base, onsetMicros: start, windowMicros: 100_000),
                WindowedRFD.rfd(of: moved, onsetMicros: start + shift, windowMicros: 100_000), tolerance: 1e-4))
            let holdA = EnduranceHold(trace: base, onsetMicros: start)
            let holdB = EnduranceHold(trace: moved, onsetMicros: start + shift)
            #expect(holdA?.timeToFailureMicros == holdB?.timeToFailureMicros)
            #expect(holdA?.peakKg == holdB?.peakKg)
        }
    }

    @Test("for any all-out test: the lowest complete rep mean ≤ CF ≤ the highest, W′ ≥ 0, W′/CF ≥ 0")
    func criticalForceBounds() async {
        let rep = Gen.double(in: 0...80).array(of: 3)
        await propertyCheck(count: 300, input: rep.array(of: 12...40), Gen.bool.array(of: 40)) { values, complete in
            let reps = values.enumerated().map { index, value in
                let seconds = 0.5 + value[1] / 10
                // The end reps complete, so the test is never refused for lack of them.
                return CriticalForce.Rep(
                    meanKg: value[0], peakKg: value[0] + value[2] / 4, durationMicros: Int64(seconds * 1_000_000),
                    impulseKgSeconds: value[0] * seconds, isComplete: complete[index] || index >= values.count * 3 / 4)
            }
            guard let result = try? CriticalForce(reps: reps) else {
                Issue.record("refused a test of \(reps.count) reps")
                return
            }
            let means = reps.filter(\.isComplete).map(\.meanKg)
            #expect(result.criticalForceKg >= means.min()! - 1e-9)
            #expect(result.criticalForceKg <= means.max()! + 1e-9)
            #expect(result.wPrimeKgSeconds >= 0)
            #expect((result.wPrimeOverCriticalForceSeconds ?? 0) >= 0)
        }
    }
}
