import Foundation
import GripTestSupport
import Testing

/// `[protocols]` of griptrack.toml on the command line: `record --protocol NAME` runs and stores the notation the
/// name stands for; `griptrack protocols` lists them after the built-ins.
@Suite("CLI: protocols from the configuration")
struct ConfiguredProtocolTests {
    static let config = """
        [entitlements]
        bypass = false

        [protocols]
        "board repeaters" = "Repeaters 6x 7:3  @80%"
        sprint = "rfd 5x rest 30s"
        """

    @Test("record --replay --protocol NAME cues the configured notation and stores it, not the name")
    func recordResolvesAConfiguredName() async throws {
        let sandbox = try CLISandbox(config: Self.config)
        defer { sandbox.cleanUp() }
        let recorded = try await sandbox.run(
            "record", "--replay", sandbox.capture("repeaters-missed"), "--speed", "100", "--protocol",
            "Board Repeaters", "--max-kg", "27")
        #expect(recorded.status == 0, "\(recorded)")
        #expect(recorded.stdout.contains("\nGET READY  5 s · right hand first\nHANG  rep 1/6 · "), "\(recorded)")
        // The band is 75–85 % of --max-kg: the configured notation's @80%.
        #expect(recorded.stdout.contains(" · band 20.2–22.9 kg\n"), "\(recorded)")
        let list = try await sandbox.run("list", "--json")
        let row = try #require(
            (try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [String: Any])?["recordings"]
                as? [[String: Any]]).first
        #expect(row?["protocol"] as? String == "repeaters 6x 7:3 @80%", "\(list)")
        // A name the file does not give is still read as notation, and refused with its column.
        let unknown = try await sandbox.run("record", "--protocol", "board")
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains(#"--protocol "board": column 1: "board" is not a kind"#), "\(unknown)")
    }

    @Test("protocols lists the built-ins then the configuration's, as text and as JSON")
    func protocolsListsBoth() async throws {
        let sandbox = try CLISandbox(config: Self.config)
        defer { sandbox.cleanUp() }
        let text = try await sandbox.plain(["protocols", "--config", sandbox.config])
        #expect(text.status == 0, "\(text)")
        #expect(text.stdout.hasPrefix("Built-in:\n  max              max 3x 10s rest 180s alternate\n"), "\(text)")
        #expect(text.stdout.hasSuffix(
            "\nFrom \(sandbox.config):\n  board repeaters  Repeaters 6x 7:3  @80%\n  sprint           rfd 5x rest 30s\n"),
            "\(text)")
        let json = try await sandbox.plain(["protocols", "--json", "--config", sandbox.config])
        let entries = try #require(
            (try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])?["protocols"]
                as? [[String: Any]])
        #expect(entries.map { $0["name"] as? String } == ["max", "repeaters", "cf", "rfd", "endurance", "board repeaters", "sprint"])
        #expect(entries.last?["source"] as? String == "config")
        #expect(entries.last?["kind"] as? String == "rfd")

        let bad = try CLISandbox(config: "[protocols]\nmax = \"max 2x 10s\"\n")
        defer { bad.cleanUp() }
        let refused = try await bad.plain(["protocols", "--config", bad.config])
        #expect(refused.status == 5)
        #expect(refused.stderr.contains("\(bad.config):2: protocols.max: \"max\" is a built-in protocol's name"), "\(refused)")
    }
}
