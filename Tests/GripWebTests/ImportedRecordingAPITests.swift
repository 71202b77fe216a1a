import Foundation
import GripProtocol
import GripTestSupport
import Testing

/// Issue 29: an imported test's page shows the Tindeq app's figures beside griptrack's. They come through the
/// daemon's `SHOW` reply (`imported`, protocol 1.9), which `GET /api/recordings/{id}` forwards and `griptrack show`
/// reads when it asks the daemon.
@Suite("Web app: an imported recording's figures", .serialized)
struct ImportedRecordingAPITests {
    static let fixtures = CaptureFixtures.repositoryRoot.appendingPathComponent("Tests/GripImportTests/Fixtures")

    static func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "not JSON: \(text)")
    }

    @Test("GET /api/recordings/{id} carries the app's max and griptrack's; show through the daemon prints what show --db does")
    func importedFiguresReachTheWebApp() async throws {
        let web = try await WebHarness()
        let watch = ["Authorization": "Bearer " + (try await web.token("watch", name: "screen"))]
        let cli = try CLIRunner()
        defer { cli.cleanUp() }
        let database = web.directory + "/griptrack.db"
        let config = web.directory + "/griptrack.toml"
        try Data("[entitlements]\nbypass = false\n".utf8).write(to: URL(fileURLWithPath: config))
        // Written into the daemon's own database beside it (griptrack import opens the file; the daemon reads it).
        let imported = try await cli.run([
            "import", Self.fixtures.appendingPathComponent("peak-force.csv").path,
            Self.fixtures.appendingPathComponent("rfd.csv").path, "--db", database, "--config", config,
        ])
        #expect(imported.status == 0, "\(imported)")

        let shown = try await web.request("GET", "/api/recordings/1", headers: watch)
        #expect(shown.status == 200, "\(shown.body)")
        let reply = try Self.json(shown.body)
        let recording = try #require(reply["recording"] as? [String: Any])
        let comparison = try #require(reply["imported"] as? [String: Any], "\(shown.body)")
        #expect(comparison["source"] as? String == "tindeq-app")
        #expect(comparison["test_type"] as? String == "peak")
        #expect(comparison["file_name"] as? String == "peak-force.csv")
        let max = try #require((comparison["figures"] as? [[String: Any]])?.first { $0["name"] as? String == "max" })
        #expect(max["app"] as? Double == 42.2697786, "the app's max as peak-force.csv writes it")
        let griptrackMax = try #require(max["griptrack"] as? Double)
        #expect(griptrackMax == recording["max_kg"] as? Double, "griptrack's max is the recording's")
        #expect(abs(griptrackMax - 42.2697786) < 0.1)

        // The line the web app forwards is a typed SHOW reply, written again byte for byte.
        guard case .show(let typed) = try #require(DaemonMessage.parse(shown.body.trimmingCharacters(in: .newlines))) else {
            Issue.record("not a SHOW reply: \(shown.body)")
            return
        }
        #expect(typed.imported?.figures.first?.app == 42.2697786)
        #expect(typed.line == shown.body.trimmingCharacters(in: .newlines) + "\n")

        // `griptrack show` asking the daemon prints what it prints reading the file, comparison included.
        let socket = web.socketPath
        for id in ["1", "2"] {
            let direct = try await cli.run(["show", id, "--no-plot", "--db", database, "--config", config])
            let daemon = try await cli.run(["show", id, "--no-plot", "--socket", socket, "--config", config])
            #expect(direct.status == 0 && daemon.status == 0, "\(direct)\n\(daemon)")
            #expect(daemon.stdout == direct.stdout)
            #expect(daemon.stdout.contains("Tindeq app export: "), "\(daemon)")
            var directJSON = try Self.json(try await cli.run(["show", id, "--json", "--db", database, "--config", config]).stdout)
            var daemonJSON = try Self.json(try await cli.run(["show", id, "--json", "--socket", socket, "--config", config]).stdout)
            #expect(directJSON["imported"] != nil)
            directJSON["database"] = nil
            daemonJSON["database"] = nil
            #expect(NSDictionary(dictionary: daemonJSON).isEqual(to: directJSON), "daemon \(daemonJSON)\ndirect \(directJSON)")
            // The API's `imported` is show --json's.
            let served = try Self.json(try await web.request("GET", "/api/recordings/\(id)", headers: watch).body)
            let servedImported = try #require(served["imported"] as? [String: Any])
            #expect(NSDictionary(dictionary: servedImported).isEqual(to: try #require(directJSON["imported"] as? [String: Any])))
        }
        try await web.stop()
    }
}
