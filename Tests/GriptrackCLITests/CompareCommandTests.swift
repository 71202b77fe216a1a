import Foundation
import Testing

/// `griptrack compare`: two stored recordings side by side, Pro only.
@Suite("griptrack compare")
struct CompareCommandTests {
    static func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test("refused on the free plan with exit 3; with Pro, each side's figures are show's and the change is B − A")
    func sideBySide() async throws {
        let sandbox = try CLISandbox()
        defer { sandbox.cleanUp() }
        #expect(try await sandbox.run("replay", sandbox.capture("max-pulls"), "--save").status == 0)
        #expect(try await sandbox.run("replay", sandbox.capture("repeaters"), "--save").status == 0)
        let free = try await sandbox.run("compare", "1", "2")
        #expect(free.status == 3, "\(free)")
        #expect(free.stderr.contains("Comparing recordings (`griptrack compare`) needs Pro"), "\(free)")

        try await sandbox.run("pro", "grant", "--note", "coach")
        let result = try await sandbox.run("compare", "1", "2", "--json")
        #expect(result.status == 0, "\(result)")
        let comparison = try Self.json(result.stdout)
        let showA = try Self.json(try await sandbox.run("show", "1", "--json").stdout)
        let showB = try Self.json(try await sandbox.run("show", "2", "--json").stdout)
        let first = try #require(comparison["first"] as? [String: Any])
        let second = try #require(comparison["second"] as? [String: Any])
        let recordingA = try #require(showA["recording"] as? [String: Any])
        let recordingB = try #require(showB["recording"] as? [String: Any])
        #expect(first["max_kg"] as? Double == recordingA["max_kg"] as? Double, "the same float32, written the same way")
        #expect(second["max_kg"] as? Double == recordingB["max_kg"] as? Double)
        #expect(first["efforts"] as? Int == (showA["efforts"] as? [Any])?.count)
        #expect(second["efforts"] as? Int == 6)
        let rows = try #require(comparison["figures"] as? [[String: Any]])
        let max = try #require(rows.first { $0["name"] as? String == "max" })
        let a = try #require(max["first"] as? Double), b = try #require(max["second"] as? Double)
        #expect(abs((max["change"] as? Double ?? .nan) - (b - a)) < 1e-9)
        #expect(abs((max["change_percent"] as? Double ?? .nan) - (b - a) / a * 100) < 1e-9)

        // Text: both headings, a row per figure, the two plots on the same scales, and an SVG with both curves.
        let svg = sandbox.directory.appendingPathComponent("compare.svg").path
        let text = try await sandbox.run("compare", "1", "2", "--svg", svg)
        #expect(text.status == 0, "\(text)")
        #expect(text.stdout.hasPrefix("A: #1 "), "\(text)")
        #expect(text.stdout.contains("\nB: #2 "))
        #expect(text.stdout.contains("\nmax  ") && text.stdout.contains("MVC-7 (best 7 s mean)"))
        let axes = text.stdout.split(separator: "\n").filter { $0.hasSuffix(" s") && $0.hasPrefix("       0 ") }
        #expect(axes.count == 2 && axes[0] == axes[1], "one time axis for both plots: \(axes)")
        let drawn = try String(contentsOfFile: svg, encoding: .utf8)
        #expect(drawn.components(separatedBy: "<polyline").count - 1 == 2)
        #expect(drawn.contains("A: #1 ") && drawn.contains("B: #2 "))

        let missing = try await sandbox.run("compare", "1", "99")
        #expect(missing.status != 0 && missing.stderr.contains("99"), "\(missing)")
    }
}
