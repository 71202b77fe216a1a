import Foundation
import GripAnalysis
import Testing

/// Issue 30's check: a 24 × 7:3 test whose force decays to a known plateau, sampled at 80 Hz and cut by the real
/// segmenter, gives the CF and W′ it was built with.
@Suite("Critical force from a trace with a known plateau")
struct CriticalForceTraceTests {
    static let plateauKg = 15.0
    static let firstKg = 40.0
    /// Reps over which the excess above the plateau falls by e: by rep 19 it is under 0.3 % of the first rep's.
    static let decayReps = 3.0

    /// Rep `index`'s (0-based) held force.
    static func held(_ index: Int) -> Double { plateauKg + (firstKg - plateauKg) * exp(-Double(index) / decayReps) }

    /// 24 reps of 7 s, 3 s apart, each a 0.1 s linear rise to its held force, a flat hold and a 0.1 s fall,
    /// at 80 Hz from a 0.2 kg baseline, after 3 s at rest.
    static func trace() -> [ForceSample] {
        let rise = 0.1
        return stride(from: 0.0, to: 3 + 24 * 10 + 3, by: 0.0125).map { t in
            var kg = 0.2
            let local = t - 3
            let index = Int((local / 10).rounded(.down))
            if local >= 0, index < 24 {
                let inRep = local - Double(index) * 10
                let top = held(index) - 0.2
                if inRep < rise { kg += top * inRep / rise }
                else if inRep < 7 - rise { kg += top }
                else if inRep < 7 { kg += top * (7 - inRep) / rise }
            }
            return ForceSample(micros: Int64((t * 1_000_000).rounded()), kilograms: Float(kg))
        }
    }

    @Test("CF comes out within 1.5 % of the plateau and W′ within 3 % of the impulse built above it")
    func knownPlateau() throws {
        var segmenter = EffortSegmenter()
        var efforts: [Effort] = []
        let collect = { (event: SegmentEvent) in if case .effortEnded(let effort) = event { efforts.append(effort) } }
        for sample in Self.trace() { segmenter.ingest(micros: sample.micros, kilograms: sample.kilograms, emit: collect) }
        segmenter.endOfStream(emit: collect)
        #expect(efforts.count == 24)
        let result = try CriticalForce(reps: efforts.map(CriticalForce.Rep.init))
        // The ramps (0.1 s of 7 s at each end, at half force on average) take up to 1.4 % off each rep's mean.
        #expect(abs(result.criticalForceKg - Self.plateauKg) / Self.plateauKg < 0.015, "\(result.criticalForceKg)")
        // Built: every rep's 7 s above the plateau.
        let built = (0..<24).reduce(0.0) { $0 + 7 * (Self.held($1) - Self.plateauKg) }
        #expect(abs(result.wPrimeKgSeconds - built) / built < 0.03, "\(result.wPrimeKgSeconds) vs \(built)")
        #expect(result.endReps == 19...24 && result.repsLeftOut == 0)
        #expect(abs(result.peakKg - Self.firstKg) < 0.01)
    }
}
