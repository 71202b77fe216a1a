import GripAnalysis
import Testing

/// Left and right sessions paired per athlete × grip and the latest pair judged (docs/metrics.md, "Asymmetry").
@Suite("Asymmetry per athlete and grip")
struct AsymmetryHistoryTests {
    /// One left and one right session of `athlete`'s `grip` on `day`, with L + R = 100 kg so the index is (L − R)/100.
    static func pair(
        day: Int, left: Double, right: Double, athlete: String = "Ana", grip: String = "half crimp", id: Int64
    ) -> [AsymmetryHistory.Session] {
        [
            .init(id: id, day: day, startSeconds: Double(day) * 86_400, athlete: athlete, grip: grip, hand: .left, mvcKg: left),
            .init(
                id: id + 1, day: day, startSeconds: Double(day) * 86_400 + 600, athlete: athlete, grip: grip, hand: .right,
                mvcKg: right),
        ]
    }

    /// Ana's half crimp on days 0–6: −5, −4, −6, −5, −3, −7 % (the band of AsymmetryTests), then the latest.
    static func ana(latestLeft: Double) -> [AsymmetryHistory.Session] {
        let lefts = [47.5, 48, 47, 47.5, 48.5, 46.5, latestLeft]
        return lefts.enumerated().flatMap { day, left in pair(day: day, left: left, right: 100 - left, id: Int64(day * 10)) }
    }

    @Test("seven days of both hands: the latest −10 % lies outside the band of the six before it, stronger on the right")
    func latestOutsideBand() throws {
        let history = AsymmetryHistory(Self.ana(latestLeft: 45))
        let group = try #require(history.groups.first)
        #expect(history.groups.count == 1)
        #expect(group.pairs.map(\.index) == [-0.05, -0.04, -0.06, -0.05, -0.03, -0.07, -0.1])
        let band = try #require(Asymmetry.band(history: [-0.05, -0.04, -0.06, -0.05, -0.03, -0.07]))
        // Mean −5 %, sample SD 1.41 %: the band is −7.83 % to −2.17 %.
        #expect(abs(band.lowerBound - -0.0782842712) < 1e-9 && abs(band.upperBound - -0.0217157288) < 1e-9)
        #expect(group.latest == .unusual(band: band))
        #expect(group.pairsNeeded == 0)
    }

    @Test("the same history with a latest −6 % lies inside the band")
    func latestInsideBand() throws {
        let group = try #require(AsymmetryHistory(Self.ana(latestLeft: 47)).groups.first)
        let band = try #require(Asymmetry.band(history: [-0.05, -0.04, -0.06, -0.05, -0.03, -0.07]))
        #expect(group.latest == .usual(band: band))
    }

    @Test("under six earlier pairs there is no band, and the group says how many more pairs it needs")
    func tooFewPairs() throws {
        let sessions = Array(Self.ana(latestLeft: 45).prefix(6))  // days 0–2
        let group = try #require(AsymmetryHistory(sessions).groups.first)
        #expect(group.pairs.count == 3)
        #expect(group.latest == .tooFewSessions(found: 2))
        #expect(group.pairsNeeded == 4)
        // One hand only: a group without pairs needs all seven.
        let lonely = AsymmetryHistory([Self.ana(latestLeft: 45)[0]]).groups
        #expect(lonely.first?.pairs == [] && lonely.first?.latest == nil && lonely.first?.pairsNeeded == 7)
        #expect(lonely.first?.unpairedSessions == 1)
    }

    @Test("a day's best MVC of each hand pairs; a day of one hand, both hands and another grip or athlete stay apart")
    func pairingRules() throws {
        var sessions = Self.pair(day: 3, left: 40, right: 50, athlete: "Ana", grip: "Half Crimp", id: 1)
        sessions += [
            // A better left the same day wins; a weaker right does not replace the better one.
            .init(id: 3, day: 3, startSeconds: 3 * 86_400 + 1_200, athlete: "ana", grip: "half crimp", hand: .left, mvcKg: 45),
            .init(id: 4, day: 3, startSeconds: 3 * 86_400 + 1_800, athlete: "ANA", grip: "half crimp", hand: .right, mvcKg: 44),
            // A left alone on day 4; a both-hands recording, ignored.
            .init(id: 5, day: 4, startSeconds: 4 * 86_400, athlete: "Ana", grip: "half crimp", hand: .left, mvcKg: 60),
            .init(id: 6, day: 4, startSeconds: 4 * 86_400 + 60, athlete: "Ana", grip: "half crimp", hand: .both, mvcKg: 90),
        ]
        sessions += Self.pair(day: 3, left: 30, right: 30, athlete: "Ana", grip: "open", id: 7)
        sessions += Self.pair(day: 3, left: 55, right: 45, athlete: "Ben", grip: "half crimp", id: 9)
        let groups = AsymmetryHistory(sessions).groups
        #expect(groups.map { "\($0.athlete ?? "-")/\($0.grip ?? "-")" } == ["Ana/Half Crimp", "Ana/open", "Ben/half crimp"])
        let crimp = groups[0]
        #expect(crimp.pairs.count == 1 && crimp.unpairedSessions == 1)
        #expect(crimp.pairs.first?.leftID == 3 && crimp.pairs.first?.rightID == 2)
        #expect(crimp.pairs.first?.index == (45.0 - 50) / 95)
        #expect(groups[1].pairs.first?.index == 0)
        #expect(groups[2].pairs.first?.index == 0.1)
    }
}
