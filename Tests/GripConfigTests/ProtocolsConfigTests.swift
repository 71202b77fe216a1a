import Foundation
import GripConfig
import Testing

/// `[protocols]` (docs/protocols.md, "Your own protocols"): names for notation, read by the one parser when the file
/// loads, so a name the file gives always runs.
@Suite("[protocols] configuration")
struct ProtocolsConfigTests {
    @Test("names and their notation are read in the file's order; a name matches whatever its case")
    func protocolsAreRead() throws {
        let config = try GriptrackConfig.parse(
            """
            [device]
            profile = "progressor"

            [protocols]
            "board repeaters" = "repeaters 6x 7:3 @80%"
            Sprint = "rfd 5x rest 30s"
            aa = "max 2x 10s rest 120s"
            """, file: "griptrack.toml")
        #expect(config.protocols.map(\.name) == ["board repeaters", "Sprint", "aa"])
        #expect(config.protocols[0].notation == "repeaters 6x 7:3 @80%")
        #expect(config.configuredProtocol(named: "sprint")?.notation == "rfd 5x rest 30s")
        #expect(config.configuredProtocol(named: "repeaters") == nil)
        #expect(try GriptrackConfig.parse("", file: "griptrack.toml").protocols.isEmpty)
    }

    @Test("bad notation, a built-in's name, a clash of case or a non-string is refused with file, line and key")
    func badProtocolsAreRefused() {
        let cases: [(text: String, line: Int, key: String, problem: String)] = [
            ("[protocols]\n\n\"hard cf\" = \"cf 24x 7:3 @80%\"\n", 3, #"protocols."hard cf""#,
             #""cf 24x 7:3 @80%": column 12: "#),
            ("[protocols]\nboard = \"repeaters 6x 7-3\"\n", 2, "protocols.board",
             #""repeaters 6x 7-3": column 14: "7-3": write work and rest with a colon, e.g. 7:3"#),
            ("[protocols]\nRepeaters = \"repeaters 5x 7:3\"\n", 2, "protocols.Repeaters",
             #""Repeaters" is a built-in protocol's name, and a built-in wins; give yours another name"#),
            ("[protocols]\nboard = \"max 3x 10s\"\nBoard = \"max 2x 10s\"\n", 3, "protocols.Board",
             #""Board" differs from "board" only in case"#),
            ("[protocols]\nboard = 6\n", 2, "protocols.board", "expected protocol notation in quotes"),
            ("[protocols]\n\" board\" = \"max 3x 10s\"\n", 2, #"protocols." board""#, "without surrounding spaces"),
            ("[protocols]\nboard = \"\"\n", 2, "protocols.board", #""": column 1: empty"#),
        ]
        for (text, line, key, problem) in cases {
            do {
                _ = try GriptrackConfig.parse(text, file: "/etc/griptrack/griptrack.toml")
                Issue.record("accepted \(text)")
            } catch {
                #expect(error.file == "/etc/griptrack/griptrack.toml")
                #expect(error.line == line, "\(error)")
                #expect(error.key == key, "\(error)")
                #expect(error.problem.contains(problem), "\(error)")
            }
        }
    }

    @Test("an unknown section's message lists [protocols] among the known ones")
    func knownSectionsIncludeProtocols() {
        do {
            _ = try GriptrackConfig.parse("[protocol]\nboard = \"max 3x 10s\"\n", file: "griptrack.toml")
            Issue.record("accepted [protocol]")
        } catch {
            #expect(error.problem.contains("[protocols]"), "\(error)")
        }
    }
}
