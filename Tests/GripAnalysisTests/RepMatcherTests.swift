import GripAnalysis
import Testing

@Suite("Planned reps against performed reps")
struct RepMatcherTests {
    /// A 7 s rep at `kg` every 10 s from `start`, `drift` µs later each rep; `skip` left out, `short` let go at 4 s.
    static func set(
        reps: Int, start: Int64 = 5_000_000, drift: Int64 = 0, skip: Set<Int> = [], short: Set<Int> = [], kg: Float = 20
    ) -> (efforts: [PerformedRep], trace: [ForceSample]) {
        var efforts: [PerformedRep] = []
        var trace: [ForceSample] = []
        for rep in 0..<reps where !skip.contains(rep) {
            let onset = start + Int64(rep) * (10_000_000 + drift)
            let held: Int64 = short.contains(rep) ? 4_000_000 : 7_000_000
            efforts.append(PerformedRep(startMicros: onset, endMicros: onset + held, meanKg: Double(kg), peakKg: Double(kg)))
            trace.append(ForceSample(micros: onset, kilograms: kg))
            trace.append(ForceSample(micros: onset + held, kilograms: 0))
        }
        return (efforts, trace)
    }

    @Test("a repeaters set with a missed rep and a short one: each planned rep says what became of it")
    func missedAndShort() throws {
        let training = try ProtocolNotation.parse("repeaters 6x 7:3 @80%")
        let (efforts, trace) = Self.set(reps: 6, drift: 200_000, skip: [3], short: [4])
        let outcomes = RepMatcher.match(training, performed: efforts, trace: trace, maxKg: 25)
        #expect(outcomes.map(\.status) == [.done, .done, .done, .missed, .short, .done])
        #expect(outcomes.map(\.performedIndex) == [0, 1, 2, nil, 3, 4])
        // 20 kg is 80 % of 25 kg: inside the 75–85 % band for as long as the rep was held.
        #expect(outcomes[0].inBandFraction == 1)
        #expect(outcomes[4].inBandFraction.map { abs($0 - 4.0 / 7) < 1e-9 } == true)
        #expect(outcomes[3].inBandFraction == nil)
    }

    @Test("without the athlete's max there is no time in band; an extra pull between reps is no rep")
    func noMaxAndExtraPull() throws {
        let training = try ProtocolNotation.parse("repeaters 3x 7:3 @80%")
        var (efforts, trace) = Self.set(reps: 3)
        efforts.insert(PerformedRep(startMicros: 12_500_000, endMicros: 13_000_000, meanKg: 5, peakKg: 6), at: 1)
        let outcomes = RepMatcher.match(training, performed: efforts, trace: trace, maxKg: nil)
        #expect(outcomes.map(\.status) == [.done, .done, .done])
        #expect(outcomes.map(\.performedIndex) == [0, 2, 3])
        #expect(outcomes.allSatisfy { $0.inBandFraction == nil })
    }

    @Test("no efforts at all: every rep missed")
    func nothingPulled() throws {
        let outcomes = RepMatcher.match(try ProtocolNotation.parse("cf 24x 7:3"), performed: [], trace: [], maxKg: 40)
        #expect(outcomes.count == 24 && outcomes.allSatisfy { $0.status == .missed })
    }

    @Test("time in band counts each sample's force until the next sample, and time past the trace as outside")
    func fractionInBand() {
        let trace = [0, 10, 20, 10].enumerated().map { ForceSample(micros: Int64($0.offset) * 1_000_000, kilograms: Float($0.element)) }
        #expect(RepMatcher.fractionInBand(trace, from: 0, micros: 4_000_000, band: 9...15) == 0.25)
        #expect(RepMatcher.fractionInBand(trace, from: 500_000, micros: 1_000_000, band: 9...15) == 0.5)
    }
}
