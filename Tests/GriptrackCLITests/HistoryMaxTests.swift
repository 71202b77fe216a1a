import Foundation
import GripTestSupport
import Testing

/// `record --protocol` without `--max-kg`: the band's max is the athlete's best stored for that hand and grip.
@Suite("CLI: the band's max from history")
struct HistoryMaxTests {
    @Test("the best stored max of the athlete's hand and grip sets the band, is named and stored; none says to pass --max-kg")
    func bandMaxComesFromHistory() async throws {
        let sandbox = try CLISandbox()
        defer { sandbox.cleanUp() }
        let setup = ["--hand", "right", "--athlete", "Ana", "--grip", "half crimp"]
        for capture in ["max-pulls", "repeaters"] {
            let saved = try await sandbox.runner.run(
                ["record", "--replay", sandbox.capture(capture), "--speed", "100"] + setup
                    + ["--db", sandbox.database, "--config", sandbox.config])
            #expect(saved.status == 0, "\(saved)")
        }
        // Athlete and grip match whatever their case, as `list --athlete` and `--grip` do.
        let run = try await sandbox.run(
            "record", "--replay", sandbox.capture("repeaters"), "--speed", "100", "--protocol", "repeaters",
            "--hand", "right", "--athlete", "ana", "--grip", "Half Crimp")
        #expect(run.status == 0, "\(run)")
        #expect(run.stdout.hasPrefix("Band max 48.4 kg: recording #1 ("), "\(run)")
        #expect(run.stdout.contains("Ana, right hand, half crimp), the best stored; --max-kg overrides it.\n"), "\(run)")
        // 75–85 % of 48.4 kg.
        #expect(run.stdout.contains(" · band 36.3–41.2 kg\n"), "\(run)")
        let list = try await sandbox.run("list", "--json")
        let rows = try #require(
            (try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [String: Any])?["recordings"]
                as? [[String: Any]])
        let newest = try #require(rows.first)
        #expect(newest["id"] as? Int == 3, "\(list)")
        #expect(abs((newest["protocol_max_kg"] as? Double ?? 0) - 48.42) < 0.01, "\(list)")

        // Another athlete has nothing stored: said, with what to do; the run goes on without a band.
        let none = try await sandbox.run(
            "record", "--replay", sandbox.capture("repeaters"), "--speed", "100", "--no-save", "--protocol",
            "repeaters", "--hand", "right", "--athlete", "Bo")
        #expect(none.status == 0, "\(none)")
        #expect(none.stdout.hasPrefix(
            "No stored recording (Bo, right hand) gives a max for the protocol's band, so the run shows no band. "
                + "Pass --max-kg KG, your max for this hand and grip"), "\(none)")
        #expect(!none.stdout.contains(" · band "), "\(none)")
        // A protocol without a band looks nothing up.
        let rfd = try await sandbox.run(
            "record", "--replay", sandbox.capture("rfd-pulls"), "--speed", "100", "--no-save", "--protocol", "rfd",
            "--athlete", "Bo")
        #expect(rfd.status == 0, "\(rfd)")
        #expect(!rfd.stdout.contains("Band max") && !rfd.stdout.contains("No stored recording"), "\(rfd)")
    }
}
