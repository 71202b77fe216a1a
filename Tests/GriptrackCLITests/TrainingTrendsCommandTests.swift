import Foundation
import GripTestSupport
import Testing

/// Issue 30: `griptrack trends` per athlete × hand × grip × protocol, and its `--svg` chart.
@Suite("trends per athlete, hand, grip and protocol")
struct TrainingTrendsCommandTests {
    typealias Seeds = ExportSetupTests

    @Test("trends group per athlete × hand × grip × protocol with first, latest, changes and the weekly slope")
    func trendsPerGroup() async throws {
        let sandbox = try CLISandbox()
        defer { sandbox.cleanUp() }
        try await Seeds.seed(sandbox)
        // Pro-only, as all of trends: the free plan keeps stats.
        let svgPath = sandbox.directory.appendingPathComponent("trends.svg").path
        let free = try await sandbox.run("trends", "--svg", svgPath)
        #expect(free.status == 3, "\(free)")
        #expect(!FileManager.default.fileExists(atPath: svgPath))
        #expect(try await sandbox.run("pro", "grant").status == 0)

        let json = try Seeds.json(try await sandbox.run("trends", "--json").stdout)
        let training = try #require(json["training"] as? [String: Any])
        #expect(training["slope_method"] as? String
            == "least squares of each figure against each test's start time; per week")
        let groups = try #require(training["groups"] as? [[String: Any]])
        // Ana's left and right (her right-hand grip typed in another case is the same grip), then Ben's.
        #expect(groups.map { $0["hand"] as? String } == ["left", "right", "left"])
        #expect(groups.map { $0["tests"] as? Int } == [3, 1, 1])
        #expect(groups[0]["athlete"] as? String == "Ana" && groups[0]["grip"] as? String == "half crimp")
        #expect(groups[0]["protocol"] as? String == "max 3x 10s rest 180s alternate")
        #expect(groups[2]["protocol"] == nil)
        let figures = try #require(groups[0]["figures"] as? [[String: Any]])
        #expect(figures.map { $0["name"] as? String } == ["mvc", "mvc7", "rfd"])
        let mvc = figures[0]
        #expect(mvc["first"] as? Double == 40 && mvc["latest"] as? Double == 44)
        #expect(mvc["change_since_first"] as? Double == 4 && mvc["change_since_previous"] as? Double == 2)
        #expect(abs((mvc["slope_per_week"] as? Double ?? 0) - 2) < 1e-9, "\(mvc)")
        #expect((mvc["points"] as? [[String: Any]])?.map { $0["id"] as? Int } == [1, 2, 3])
        // RFD 20–80 % of the rise is 2 × the peak a second: 80, 84, 88 kg/s over two weeks, 4 kg/s a week.
        let rfd = figures[2]
        #expect(abs((rfd["first"] as? Double ?? 0) - 80) < 1, "\(rfd)")
        #expect(abs((rfd["slope_per_week"] as? Double ?? 0) - 4) < 0.5, "\(rfd)")

        let text = try await sandbox.run("trends")
        #expect(text.status == 0, "\(text)")
        #expect(text.stdout.contains("""

            Ana · left hand · half crimp · protocol max 3x 10s rest 180s alternate: 3 tests
              figure          first       latest   since first    since last            slope
              MVC           40.0 kg      44.0 kg       +4.0 kg       +2.0 kg     +2.0 kg/week

            """), "\(text)")
        #expect(text.stdout.contains("\n  MVC (kg)\n  44.0 ┤"), "\(text)")
        #expect(!(try await sandbox.run("trends", "--no-plot").stdout.contains("┤")))

        let drawn = try await sandbox.run("trends", "--svg", svgPath)
        #expect(drawn.status == 0 && drawn.stdout.hasSuffix("Chart written to \(svgPath)\n"), "\(drawn)")
        let svg = try String(contentsOfFile: svgPath, encoding: .utf8)
        #expect(svg.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\""))
        #expect(svg.contains(">Ana · left hand · half crimp · protocol max 3x 10s rest 180s alternate — MVC — slope +2.0 kg/week</text>"))
        // One dot per test and figure: Ana's left 3 × 3, her right 1 × 3, Ben's 1 × 3.
        #expect(svg.components(separatedBy: "<circle ").count - 1 == 15)
        #expect(svg.hasSuffix("</svg>\n"))
    }
}

extension TrainingTrendsCommandTests {
    @Test("a recording stored with the cf protocol brings its critical force into trends; show adds it by default")
    func criticalForceInTrends() async throws {
        let sandbox = try CLISandbox()
        defer { sandbox.cleanUp() }
        #expect(try await sandbox.run("replay", sandbox.capture("cf-plateau"), "--save").status == 0)
        #expect(try await sandbox.run("label", "1", "--protocol", "cf", "--athlete", "Ana").status == 0)
        let shown = try Seeds.json(try await sandbox.run("show", "1", "--json").stdout)
        let critical = try #require(shown["critical_force"] as? [String: Any])
        // The capture is built to a 15 kg plateau above a 0.2 kg baseline (ProtocolSessionsTests).
        let cf = try #require(critical["critical_force_kg"] as? Double)
        #expect(abs(cf - 15.2) / 15.2 < 0.015)
        #expect(try await sandbox.run("pro", "grant").status == 0)
        let groups = try #require(
            (try Seeds.json(try await sandbox.run("trends", "--json").stdout)["training"] as? [String: Any])?["groups"]
                as? [[String: Any]])
        #expect(groups.count == 1 && groups[0]["protocol"] as? String == "cf 24x 7:3")
        let figure = (groups[0]["figures"] as? [[String: Any]])?.first { $0["name"] as? String == "cf" }
        #expect(figure?["latest"] as? Double == cf)
        #expect(figure?["slope_per_week"] == nil)
    }
}
