import GripAnalysis
import PropertyBased
import Testing

/// Trends per athlete × hand × grip × protocol: the least-squares slope, the changes, and what groups together.
@Suite("Training trends")
struct TrainingTrendsTests {
    static func close(_ a: Double?, _ b: Double?, tolerance: Double = 1e-6) -> Bool {
        guard let a, let b else { return a == nil && b == nil }
        return abs(a - b) <= tolerance * max(1, abs(a), abs(b))
    }

    @Test("the slope of a linear series is its rate, whatever the times, and a shift in time changes nothing")
    func slopeOfALine() async {
        await propertyCheck(
            count: 300, input: Gen.double(in: 0...1e7).array(of: 2...40), Gen.double(in: -50...50),
            Gen.double(in: -100...100), Gen.double(in: -2e9...2e9)
        ) { times, rate, intercept, shift in
            let points = times.map { (x: $0, y: intercept + rate * $0) }
            let distinct = Set(times).count >= 2
            let slope = LeastSquares.slope(points)
            #expect(distinct ? Self.close(slope, rate, tolerance: 1e-6) : slope == nil, "\(times) \(rate)")
            let shifted = LeastSquares.slope(points.map { (x: $0.x + shift, y: $0.y) })
            #expect(Self.close(shifted, slope, tolerance: 1e-6), "\(shift)")
        }
    }

    @Test("no line through one time: two tests on the same second have no slope")
    func noSlopeWithoutTwoTimes() {
        #expect(LeastSquares.slope([(x: 5, y: 1)]) == nil)
        #expect(LeastSquares.slope([(x: 5, y: 1), (x: 5, y: 3)]) == nil)
        #expect(LeastSquares.slope([(x: 0, y: 1), (x: 2, y: 5)]) == 2)
    }

    static let day = 86_400.0

    static func test(
        _ id: Int64, day: Double, athlete: String? = "Ana", hand: Hand? = .left, grip: String? = "half crimp",
        protocol notation: String? = "max 3x 10s rest 180s alternate", _ values: [TrainingTrends.Metric: Double]
    ) -> TrainingTrends.Test {
        TrainingTrends.Test(
            id: id, startSeconds: 1_790_000_000 + day * Self.day,
            key: TrainingTrends.Key(athlete: athlete, hand: hand, grip: grip, protocolNotation: notation), values: values)
    }

    @Test("tests group per athlete (any case) × hand × grip × protocol; each figure has its own points and changes")
    func grouping() throws {
        let trends = TrainingTrends([
            Self.test(3, day: 14, [.mvc: 44, .mvc7: 30]),
            Self.test(1, day: 0, athlete: "ana", [.mvc: 40, .mvc7: 28, .rfd: 150]),
            Self.test(2, day: 7, [.mvc: 41]),
            Self.test(4, day: 3, hand: .right, [.mvc: 38]),
            Self.test(5, day: 4, protocol: "cf 24x 7:3", [.mvc: 39, .cf: 17.5]),
            Self.test(6, day: 5, athlete: nil, [.mvc: 20]),
        ])
        // Ordered by athlete, hand, grip, then protocol: Ana's left cf test, her left max tests, her right, nobody's.
        #expect(trends.groups.map(\.tests) == [1, 3, 1, 1])
        let ana = trends.groups[1]
        #expect(ana.key.athlete == "ana" && ana.key.hand == .left)  // spelled as its earliest test
        #expect(ana.series.map(\.metric) == [.mvc, .mvc7, .rfd])
        let mvc = ana.series[0]
        #expect(mvc.points.map(\.id) == [1, 2, 3])
        #expect(mvc.changeSinceFirst == 4 && mvc.changeSincePrevious == 3)
        // Least squares over days 0, 7, 14 of 40, 41, 44: 2 kg a week.
        #expect(Self.close(mvc.slopePerWeek, 2))
        let mvc7 = ana.series[1]
        #expect(mvc7.changeSinceFirst == 2 && Self.close(mvc7.slopePerWeek, 1))
        let rfd = ana.series[2]
        #expect(rfd.points.count == 1 && rfd.slopePerWeek == nil && rfd.changeSinceFirst == nil)
        #expect(trends.groups[0].key.protocolNotation == "cf 24x 7:3")
        #expect(trends.groups[0].series.map(\.metric) == [.mvc, .cf])
        #expect(trends.groups[2].key.hand == .right)
        #expect(trends.groups[3].key.athlete == nil)  // not said sorts last
    }

    @Test("tests less than a day apart give their changes but no slope; a day apart they give one")
    func slopeNeedsADay() throws {
        let minutesApart = TrainingTrends([
            TrainingTrends.Test(id: 1, startSeconds: 1_790_000_000, key: Self.key, values: [.mvc: 40]),
            TrainingTrends.Test(id: 2, startSeconds: 1_790_000_300, key: Self.key, values: [.mvc: 43.25]),
        ])
        let mvc = try #require(minutesApart.groups.first?.series.first)
        #expect(mvc.changeSinceFirst == 3.25 && mvc.slopePerWeek == nil)
        let aDayApart = TrainingTrends([
            TrainingTrends.Test(id: 1, startSeconds: 1_790_000_000, key: Self.key, values: [.mvc: 40]),
            TrainingTrends.Test(id: 2, startSeconds: 1_790_000_000 + Self.day, key: Self.key, values: [.mvc: 41]),
        ])
        #expect(Self.close(aDayApart.groups.first?.series.first?.slopePerWeek, 7))
    }

    static let key = TrainingTrends.Key(athlete: "ana", hand: .left, grip: nil, protocolNotation: nil)
}
