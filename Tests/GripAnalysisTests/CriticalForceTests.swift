import GripAnalysis
import Testing

@Suite("Critical force and W′")
struct CriticalForceTests {
    /// A 7 s rep of constant force `kg`.
    static func rep(_ kg: Double, seconds: Double = 7, complete: Bool = true) -> CriticalForce.Rep {
        CriticalForce.Rep(
            meanKg: kg, peakKg: kg, durationMicros: Int64(seconds * 1_000_000),
            impulseKgSeconds: kg * seconds, isComplete: complete)
    }

    /// An all-out test whose force decays from `start` to a plateau `plateau` by rep 16, then holds.
    static func decaying(start: Double, plateau: Double, reps: Int = 24) -> [CriticalForce.Rep] {
        (0..<reps).map { index in
            let fraction = min(1, Double(index) / 15)
            return rep(start + (plateau - start) * fraction)
        }
    }

    @Test("a test decaying to a known plateau gives that plateau as CF and the impulse above it as W′")
    func knownPlateau() throws {
        let result = try CriticalForce(reps: Self.decaying(start: 40, plateau: 20))
        #expect(abs(result.criticalForceKg - 20) < 1e-9)
        // Reps 1–15 lie above the plateau by 20 × (1 − i/15) kg for 7 s each: 7 × 20 × (15 − Σ i/15 for i in 0..<15).
        var expected = 0.0
        for index in 0..<15 { expected += 7 * 20 * (1 - Double(index) / 15) }
        #expect(abs(result.wPrimeKgSeconds - expected) < 1e-6)
        #expect(result.endReps == 19...24 && result.endRepsAveraged == 6)
        #expect(result.peakKg == 40 && abs(result.fractionOfPeak - 0.5) < 1e-9)
    }

    @Test("reps cut by the stream are left out of CF and W′, and counted")
    func openRepsLeftOut() throws {
        var reps = Self.decaying(start: 40, plateau: 20)
        reps[0] = Self.rep(60, complete: false)  // under way when the stream began
        reps[23] = Self.rep(5, complete: false)  // the stream ended mid-rep
        let result = try CriticalForce(reps: reps)
        #expect(abs(result.criticalForceKg - 20) < 1e-9)
        #expect(result.endRepsAveraged == 5 && result.repsLeftOut == 2)
        #expect(result.peakKg < 60)
    }

    @Test("too short a test, or too few complete end reps, is refused with the reason")
    func refusals() {
        #expect(throws: CriticalForce.Problem.tooFewReps(found: 6, needed: 12)) {
            try CriticalForce(reps: Self.decaying(start: 30, plateau: 20, reps: 6))
        }
        var reps = Self.decaying(start: 30, plateau: 20)
        for index in 20..<24 { reps[index].isComplete = false }
        #expect(throws: CriticalForce.Problem.tooFewCompleteEndReps(found: 2, needed: 3)) { try CriticalForce(reps: reps) }
    }

    @Test("for any test: CF lies between the lowest and highest end-rep means, W′ is never negative")
    func boundsHoldForRandomTests() throws {
        var generator = Xorshift(seed: 0x5EED)
        for _ in 0..<500 {
            let count = Int.random(in: 12...40, using: &generator)
            let reps = (0..<count).map { _ in
                Self.rep(Double.random(in: 0...80, using: &generator), seconds: Double.random(in: 0.5...9, using: &generator),
                         complete: Int.random(in: 0..<10, using: &generator) > 0)
            }
            guard let result = try? CriticalForce(reps: reps) else { continue }
            let end = reps[(result.endReps.lowerBound - 1)...].filter(\.isComplete).map(\.meanKg)
            #expect(result.criticalForceKg >= end.min()! - 1e-9 && result.criticalForceKg <= end.max()! + 1e-9)
            #expect(result.wPrimeKgSeconds >= 0)
        }
    }
}

/// A small seeded generator: the sweep is the same on every run.
private struct Xorshift: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        return state
    }
}
