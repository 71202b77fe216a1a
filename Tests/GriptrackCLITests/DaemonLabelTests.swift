import Foundation
import Glibc
import GripTestSupport
import Testing

/// Issue 30: `griptrack label` through griptrackd (LABEL, protocol 1.6), and list's filters over the daemon's rows.
@Suite("label through griptrackd", .serialized, .timeLimit(.minutes(4)))
struct DaemonLabelTests {
    @Test("label changes a recording in the daemon's database; list filters it; a watcher may not; a bad id exits 1")
    func labelThroughTheDaemon() async throws {
        let runner = try CLIRunner()
        defer { runner.cleanUp() }
        let directory = runner.home.appendingPathComponent("daemon").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try DaemonStoreTests.seed(directory + "/griptrack.db")
        let peer = DaemonStoreTests.Peer()
        let (daemon, task, socket) = try await DaemonStoreTests.startDaemon(directory: directory, peer: peer)
        func cli(_ arguments: [String]) async throws -> CLIRunner.Result {
            try await runner.run(arguments + ["--socket", socket])
        }

        let labelled = try await cli([
            "label", "2", "--athlete", "Ana", "--hand", "both", "--grip", "half crimp", "--edge-mm", "20",
            "--body-weight-kg", "61.5", "--label", "max test",
        ])
        #expect(labelled.status == 0, "\(labelled)")
        #expect(labelled.stdout == "Recording 2: Ana (61.5 kg), both hands, half crimp, 20 mm edge, “max test”\n")
        let edited = try await cli(["label", "3", "--athlete", "Ben", "--hand", "left", "--json"])
        #expect(edited.status == 0, "\(edited)")
        let reply = try #require(try DaemonStoreTests.json(edited.stdout)["recording"] as? [String: Any])
        #expect(reply["athlete"] as? String == "Ben" && reply["hand"] as? String == "left")

        let list = try await cli(["list", "--athlete", "ana", "--json"])
        #expect(list.status == 0, "\(list)")
        let rows = try #require(try DaemonStoreTests.json(list.stdout)["recordings"] as? [[String: Any]])
        #expect(rows.map { $0["id"] as? Int } == [2])
        #expect(rows.first?["grip"] as? String == "half crimp" && rows.first?["edge_mm"] as? Double == 20)
        #expect(rows.first?["body_weight_kg"] as? Double == 61.5 && rows.first?["hand"] as? String == "both")
        let none = try await cli(["list", "--athlete", "Ana", "--hand", "left"])
        #expect(none.stdout == "No recordings match athlete Ana, left hand.\n", "\(none)")
        let shown = try await cli(["show", "2", "--no-plot"])
        #expect(shown.stdout.split(separator: "\n").dropFirst().first == "Ana (61.5 kg), both hands, half crimp, 20 mm edge, “max test”")

        // 1.8: the protocol goes with LABEL, a built-in stored as its notation; show scores it without --protocol.
        let scored = try await cli(["label", "2", "--protocol", "max", "--max-kg", "40"])
        #expect(scored.status == 0, "\(scored)")
        #expect(scored.stdout.hasSuffix(", “max test”, protocol max 3x 10s rest 180s alternate (max 40.0 kg)\n"), "\(scored)")
        let scoredList = try await cli(["list", "--athlete", "ana", "--json"])
        let scoredRow = try #require((try DaemonStoreTests.json(scoredList.stdout)["recordings"] as? [[String: Any]])?.first)
        #expect(scoredRow["protocol"] as? String == "max 3x 10s rest 180s alternate")
        #expect(scoredRow["protocol_max_kg"] as? Double == 40)
        let scoredShow = try await cli(["show", "2", "--no-plot"])
        #expect(scoredShow.stdout.contains("\nProtocol max 3x 10s rest 180s alternate: "), "\(scoredShow)")

        let missing = try await cli(["label", "99", "--grip", "open"])
        #expect(missing.status == 1, "\(missing)")
        let usersGID = try #require(getgrnam("users")).pointee.gr_gid
        peer.set((uid: 4242, gids: [usersGID]))
        let member = try await cli(["label", "2", "--grip", "open"])
        #expect(member.status == 4, "\(member)")
        #expect(member.stderr.contains("not authorized: labelling a recording needs root or group"), "\(member)")
        peer.set(nil)

        await daemon.shutdown()
        try await task.value
    }

    @Test("label with nothing to change, or a value out of range, exits 2 naming the option", arguments: [
        (["1"], "Nothing to change: give at least one of --hand, --grip, --edge-mm, --athlete, --body-weight-kg, --label, --protocol, --max-kg."),
        (["1", "--edge-mm", "0"], "--edge-mm 0.0 mm is outside 1–100 mm."),
        (["1", "--athlete", "a\u{1B}[2J"], "--athlete has a control character (U+001B) at character 2; a label is one line of text."),
    ])
    func usage(_ arguments: [String], message: String) async throws {
        let runner = try CLIRunner()
        defer { runner.cleanUp() }
        let result = try await runner.run(["label"] + arguments)
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("Error: \(message)\n"), "\(result)")
    }
}
