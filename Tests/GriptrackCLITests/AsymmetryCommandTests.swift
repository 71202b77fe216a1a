import Foundation
import GripTestSupport
import Testing

/// `griptrack asymmetry`: left and right pulls of one athlete and grip paired per day (docs/metrics.md, "Asymmetry").
@Suite("asymmetry per athlete and grip")
struct AsymmetryCommandTests {
    typealias Seeds = ExportSetupTests

    /// Ana's half crimp, left at 10:00 and right at 10:30 on seven days from 2026-11-02 (left + right = 100 kg:
    /// −5, −4, −6, −5, −3, −7 %, then −10 %), and one left-hand pull of Ben's.
    static func seed(_ sandbox: CLISandbox) async throws {
        let lefts = [47.5, 48, 47, 47.5, 48.5, 46.5, 45]
        var files: [String] = []
        for (day, left) in lefts.enumerated() {
            let date = String(format: "2026-11-%02d", day + 2)
            for (hand, peak, time) in [("left", left, "10:00:00"), ("right", 100 - left, "10:30:00")] {
                files.append(try Seeds.write(sandbox, "ana-\(day)-\(hand).csv", Seeds.pull(
                    date: "\(date) \(time)", peak: peak, fields: ["athlete,Ana", "hand,\(hand)", "grip,half crimp"])))
            }
        }
        files.append(try Seeds.write(sandbox, "ben.csv", Seeds.pull(
            date: "2026-11-03 09:00:00", peak: 50, fields: ["athlete,Ben", "hand,left", "grip,half crimp"])))
        let imported = try await sandbox.runner.run(["import"] + files + ["--db", sandbox.database, "--config", sandbox.config])
        #expect(imported.status == 0, "\(imported)")
    }

    @Test("seven days of both hands: the latest pair lies outside Ana's own band; Ben needs seven days of both hands")
    func pairsAndBand() async throws {
        let sandbox = try CLISandbox()
        defer { sandbox.cleanUp() }
        // Pro, as trends: the free plan is refused the same way. (Pro first: the free plan stores 5 recordings.)
        let free = try await sandbox.run("asymmetry")
        #expect(free.status == 3, "\(free)")
        #expect(free.stderr.contains("`griptrack asymmetry` needs Pro ("), "\(free)")
        #expect(free.stderr.contains("`griptrack pro status` shows your plan."), "\(free)")
        #expect(try await sandbox.run("pro", "grant").status == 0)
        try await Self.seed(sandbox)

        let json = try await Seeds.json(try sandbox.run("asymmetry", "--json").stdout)
        let groups = try #require(json["groups"] as? [[String: Any]])
        #expect(groups.map { $0["athlete"] as? String } == ["Ana", "Ben"])
        let ana = groups[0]
        let pairs = try #require(ana["pairs"] as? [[String: Any]])
        #expect(pairs.map { $0["index"] as? Double } == [-0.05, -0.04, -0.06, -0.05, -0.03, -0.07, -0.1])
        #expect(pairs.last?["day"] as? String == "2026-11-08")
        #expect(pairs.last?["left_kg"] as? Double == 45 && pairs.last?["right_kg"] as? Double == 55)
        #expect((pairs.first?["left"] as? [String: Any])?["id"] as? Int == 1)
        let band = try #require(ana["band"] as? [String: Any])
        #expect(abs((band["low"] as? Double ?? 0) - -0.0782842712) < 1e-9, "\(band)")
        #expect(band["pairs"] as? Int == 6)
        #expect(ana["latest"] as? String == "outside" && ana["pairs_needed"] as? Int == 0)
        #expect(groups[1]["pairs"] as? [Any] != nil && (groups[1]["pairs"] as? [Any])?.isEmpty == true)
        #expect(groups[1]["pairs_needed"] as? Int == 7 && groups[1]["unpaired_sessions"] as? Int == 1)

        let text = try await sandbox.run("asymmetry")
        #expect(text.status == 0, "\(text)")
        #expect(text.stdout.hasPrefix("""
            Ana · half crimp: 7 pairs
              day             left      right   asymmetry  recordings
              2026-11-02   47.5 kg    52.5 kg      -5.0 %  #1 #2

            """), "\(text)")
        #expect(text.stdout.contains("""
              Band (mean ± 2 SD of the 6 earlier pairs): -7.8 % to -2.2 %
              Latest (2026-11-08): -10.0 %, outside the band: stronger on the right than usual.

            Ben · half crimp: 0 pairs (1 session on days without the other hand)
              No day with both hands yet: a band of your own needs 7 days with a left and a right of this grip \
            (6 earlier pairs and the latest).

            """), "\(text)")

        // --athlete keeps one athlete (any case); a grip nobody pulled finds nothing.
        let ben = try await Seeds.json(try sandbox.run("asymmetry", "--athlete", "BEN", "--json").stdout)
        #expect((ben["groups"] as? [[String: Any]])?.map { $0["athlete"] as? String } == ["Ben"])
        let none = try await sandbox.run("asymmetry", "--grip", "open")
        #expect(none.stdout.hasPrefix("No left- or right-hand recordings with efforts yet."), "\(none)")
    }
}
