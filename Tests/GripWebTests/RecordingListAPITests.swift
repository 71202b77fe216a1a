import Foundation
import GripTestSupport
import Testing

/// `GET /api/recordings` against `griptrack list --json` for the same daemon (docs/web.md, "API").
@Suite("Web app: the recordings list", .serialized)
struct RecordingListAPITests {
    @Test("GET /api/recordings is byte for byte what `griptrack list --json` prints for the same daemon, filters too")
    func sameAsTheCLI() async throws {
        let web = try await WebHarness()
        let watch = ["Authorization": "Bearer " + (try await web.token("watch", name: "screen"))]
        let record = ["Authorization": "Bearer " + (try await web.token("record", name: "coach"))]
        let stream = try HTTPTestClient(port: web.port)
        stream.send("GET", "/api/events", headers: watch)  // the replay waits for a watcher
        let started = try await web.request("POST", "/api/record", headers: record, body: #"{"hand":"left","label":"list test"}"#)
        let id = try #require(started.json?["id"] as? Int, "\(started.body)")
        try await Task.sleep(for: .seconds(2))
        #expect(try await web.request("POST", "/api/stop", headers: record, body: "{}").status == 200)

        let cli = try CLIRunner()
        defer { cli.cleanUp() }
        let socket = web.socketPath
        let labelled = try await cli.run([
                "label", String(id), "--athlete", "Ana", "--grip", "half crimp", "--edge-mm", "20",
                "--body-weight-kg", "61.5", "--socket", socket,
            ])
        #expect(labelled.status == 0, "\(labelled)")
        // The replay goes on after the stop (the segmenter's own recording grows until the capture ends): compare
        // once the list reads the same just before and just after the CLI's.
        let list = { try await web.request("GET", "/api/recordings", headers: watch) }
        let listJSON = { try await cli.run(["list", "--json", "--socket", socket]) }
        var before = try await list()
        var printed = try await listJSON()
        var served = try await list()
        for _ in 0..<40 where before.body != served.body {
            try await Task.sleep(for: .milliseconds(250))
            before = try await list()
            printed = try await listJSON()
            served = try await list()
        }
        #expect(before.body == served.body, "the list kept changing")
        #expect(printed.status == 0, "\(printed)")
        #expect(served.status == 200)
        #expect(served.header("content-type")?.hasPrefix("application/json") == true)
        #expect(served.body == printed.stdout)
        let recordings = try #require(served.json?["recordings"] as? [[String: Any]])
        let recording = try #require(recordings.first { $0["id"] as? Int == id })
        #expect(recording["id"] as? Int == id)
        #expect(recording["athlete"] as? String == "Ana")
        #expect(recording["grip"] as? String == "half crimp")
        #expect(recording["edge_mm"] as? Double == 20)
        #expect(recording["body_weight_kg"] as? Double == 61.5)
        #expect(recording["hand"] as? String == "left")
        #expect((recording["started_at"] as? String)?.hasSuffix("Z") == true)
        #expect(served.json?["plan"] as? String == "free")
        #expect((served.json?["database"] as? [String: Any])?["kind"] as? String == "daemon")
        #expect(try await web.request("GET", "/api/recordings?limit=0", headers: watch).status == 400)

        // `list`'s filters as query parameters: the document `list --json --athlete …` prints.
        let filters: [(query: String, arguments: [String], ids: [Int])] = [
            ("athlete=ana&hand=left&grip=HALF%20CRIMP", ["--athlete", "ana", "--hand", "left", "--grip", "HALF CRIMP"], [id]),
            ("grip=half%20crimp", ["--grip", "half crimp"], [id]),
            ("athlete=Ana&hand=right", ["--athlete", "Ana", "--hand", "right"], []),
            ("athlete=Bob", ["--athlete", "Bob"], []),
        ]
        for filter in filters {
            let served = try await web.request("GET", "/api/recordings?" + filter.query, headers: watch)
            let printed = try await cli.run(["list", "--json", "--socket", socket] + filter.arguments)
            #expect(printed.status == 0, "\(printed)")
            #expect(served.status == 200)
            #expect(served.body == printed.stdout, "\(filter.query)")
            let ids = (served.json?["recordings"] as? [[String: Any]])?.compactMap { $0["id"] as? Int }
            #expect(ids == filter.ids, "\(filter.query)")
        }
        let sideways = try await web.request("GET", "/api/recordings?hand=sideways", headers: watch)
        #expect(sideways.status == 400)
        #expect((sideways.json?["error"] as? String)?.contains("left, right or both") == true)
        try await web.stop()
    }
}
