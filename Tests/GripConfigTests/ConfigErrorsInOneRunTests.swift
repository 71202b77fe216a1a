import GripConfig
import Testing

/// A file's every problem in one run, in line order: fixing a configuration is one pass through it, not one run per
/// mistake.
@Suite("Configuration: every problem at once")
struct ConfigErrorsInOneRunTests {
    @Test("problems in three sections come together, top to bottom, each with its line and key")
    func everyProblemInLineOrder() {
        // Read section by section in name order (device, recording, web): the lines are not in that order.
        let text = """
            [web]
            listen = 8080

            [device]
            adress = "D0:0D:12:34:56:78"
            profile = "progressor"

            [recording]
            session_gap_seconds = -1

            [nonsense]
            key = 1
            """
        #expect {
            try GriptrackConfig.parse(text, file: "g.toml")
        } throws: { error in
            guard let error = error as? ConfigError else { return false }
            let lines = error.description.split(separator: "\n").map(String.init)
            return lines.count == 4
                && lines[0].hasPrefix("g.toml:2: web.listen: ")
                && lines[1].hasPrefix("g.toml:5: device.adress: unknown key; [device] knows address")
                && lines[2].hasPrefix("g.toml:9: recording.session_gap_seconds: ")
                && lines[3].hasPrefix("g.toml:11: nonsense: unknown section")
                && error.line == 2 && error.key == "web.listen" && error.more.count == 3
        }
    }

    @Test("one problem is one line, as before")
    func oneProblem() {
        #expect(throws: ConfigError(file: "g.toml", line: 2, key: "entitlements.bypass",
                                    problem: "expected true or false, got the string \"yes\"")) {
            try GriptrackConfig.parse("[entitlements]\nbypass = \"yes\"\n", file: "g.toml")
        }
    }
}
