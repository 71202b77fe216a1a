import GripAnalysis
import Testing

@Suite("Body weight from a hang, and left/right asymmetry")
struct BodyWeightAndAsymmetryTests {
    /// 80 Hz from 0 to `seconds`: a jump onto the device (90 kg for 1 s), a swing, then 62 kg with a jolt at 7 s.
    static func hang(seconds: Double) -> [ForceSample] {
        stride(from: 0.0, through: seconds, by: 0.0125).map { t in
            var kg = t < 1 ? 90.0 : t < 4 ? 62 + 6 * (4 - t) / 3 : 62
            if (7..<7.1).contains(t) { kg = 80 }
            return ForceSample(micros: Int64((t * 1_000_000).rounded()), kilograms: Float(kg))
        }
    }

    @Test("body weight is the median of seconds 5–10 of the hang: the jump, the swing and a jolt are left out")
    func hangMedian() throws {
        let weight = try BodyWeightHang.kilograms(trace: Self.hang(seconds: 12), onsetMicros: 0, endMicros: 12_000_000)
        #expect(weight == 62)
    }

    @Test("a hang under 10 s is refused with how long it lasted")
    func shortHang() {
        #expect(throws: BodyWeightHang.Problem.tooShort(micros: 7_250_000)) {
            try BodyWeightHang.kilograms(trace: Self.hang(seconds: 8), onsetMicros: 0, endMicros: 7_250_000)
        }
        #expect(BodyWeightHang.Problem.tooShort(micros: 7_250_000).description == "the hang lasted 7.2 s; hang still for 10 s")
    }

    @Test("asymmetry is (L − R)/(L + R), judged against a band from at least six earlier sessions")
    func asymmetry() throws {
        #expect(Asymmetry.index(leftKg: 45, rightKg: 55) == -0.1)
        #expect(Asymmetry.index(leftKg: 0, rightKg: 50) == nil)
        let history = [-0.05, -0.04, -0.06, -0.05, -0.03, -0.07]
        #expect(Asymmetry.judge(-0.05, history: Array(history.prefix(5))) == .tooFewSessions(found: 5))
        let band = try #require(Asymmetry.band(history: history))
        #expect(abs(band.lowerBound - (-0.05 - 2 * 0.0141421356)) < 1e-6)
        #expect(Asymmetry.judge(-0.1, history: history) == .unusual(band: band))
        #expect(Asymmetry.judge(-0.06, history: history) == .usual(band: band))
    }
}
