import Foundation
import GripDaemon
import GripProtocol
import GripTestSupport
import Testing

/// Help, configuration errors, Pro gates and export, compared verbatim.
@Suite("griptrack command line")
struct CommandLineTests {
    @Test("the root help lists every command and the exit codes")
    func rootHelp() async throws {
        let runner = try CLIRunner()
        defer { runner.cleanUp() }
        let result = try await runner.run(["--help"])
        #expect(result.status == 0)
        #expect(result.stdout == """
            OVERVIEW: Grip-strength recordings from a Bluetooth LE dynamometer.

            Exit codes: 0 ok, 1 error, 2 usage, 3 Pro required or free limit reached, 4
            Bluetooth or daemon unavailable, 5 invalid input (capture, signed data, config).

            USAGE: griptrack <subcommand>

            OPTIONS:
              --version               Show the version.
              -h, --help              Show help information.

            EVERYDAY SUBCOMMANDS:
              record                  Record a grip session with a live readout.
              status                  Show griptrackd's state: device, recording, plan.
              list                    List stored recordings, newest first.
              show                    Show a recording: its efforts and a force–time plot.
              label                   Change a recording's hand, grip, edge, athlete, body
                                      weight, label or protocol.
              delete                  Delete a recording with its efforts and samples.
              protocols               List the protocols --protocol takes by name, with
                                      their notation.

            ANALYSIS SUBCOMMANDS:
              stats                   Show max and average force; Pro adds trends and
                                      comparisons.
              trends                  Show progress across recordings (Pro).
              asymmetry               Compare left and right per athlete and grip (Pro).
              compare                 Compare two recordings: their figures side by side
                                      and their force curves (Pro).
              export                  Export recordings with every sample as CSV or JSON
                                      (Pro).

            DEVICES AND DATA SUBCOMMANDS:
              devices                 List the Bluetooth devices BlueZ knows, marking the
                                      supported ones.
              calibrate               Correct a sensor that reads a few percent off: read
                                      it unloaded, then under a known weight.
              replay                  Replay a btsnoop capture (btmon -w or Android HCI
                                      log) through the pipeline.
              capture                 Record the Bluetooth traffic to a btsnoop file for a
                                      field report.
              import                  Import the Tindeq app's CSV exports (and griptrack's
                                      own) as recordings.
              simulate                Write simulated device sessions as btsnoop captures
                                      (the replay test fixtures).

            PLAN AND OPERATOR SUBCOMMANDS:
              pro                     Show or change the Pro plan (status, grant, revoke,
                                      import, verify).
              sync                    Sync recordings to the account's PostgreSQL database
                                      (Pro).
              web                     Pair browsers with the web app and manage its tokens.
              referral                Show the account's referral code and rewards, or
                                      redeem another account's code.
              doctor                  Check a recordings database; with --repair, set
                                      damaged recordings aside.
              admin                   Operator commands: accounts and central Pro grants
                                      signed with the operator key.

              See 'griptrack help <subcommand>' for detailed help.

            """)
    }

    struct ConfigCase: CustomTestStringConvertible, Sendable {
        var text: String
        var message: String
        var testDescription: String { message }
    }

    static let configCases: [ConfigCase] = [
        ConfigCase(
            text: "# griptrack\n[entitlements]\nbypass = false\n\n[app_store]\nenviroment = \"Sandbox\"\n",
            message: ":6: app_store.enviroment: unknown key; [app_store] knows bundle_id, environment, app_apple_id, trusted_roots, account_token"),
        ConfigCase(
            text: "[app_store]\nbundle_id = \"com.example\"\nenvironment = \"Prod\"\n",
            message: ":3: app_store.environment: expected \"Production\" or \"Sandbox\", got \"Prod\""),
        ConfigCase(
            text: "[entitlements]\nbypass = \"yes\"\n",
            message: ":2: entitlements.bypass: expected true or false, got the string \"yes\""),
        ConfigCase(
            text: "[entitlements]\nbypass = false\n[daemon]\nsocket = \"/run/x\"\n",
            message: ":3: daemon: unknown section; known sections: [app_store], [device], [entitlements], [hub], [mqtt], [protocols], [recording], [sync], [web]"),
        ConfigCase(
            text: "[app_store]\napp_apple_id = -4\n",
            message: ":2: app_store.app_apple_id: expected the app's Apple ID, a whole number ≥ 0 (0 = not set), got the integer -4"),
        ConfigCase(
            text: "[app_store]\naccount_token = \"nope\"\n",
            message: ":2: app_store.account_token: expected a UUID such as \"7e3fb20b-4cdb-47cc-936d-99d65f608138\" or \"\", got \"nope\""),
        ConfigCase(
            text: "[app_store]\ntrusted_roots = \"/etc/root.der\"\n",
            message: ":2: app_store.trusted_roots: expected a list of DER certificate paths, e.g. [\"/etc/griptrack/root.der\"], got the string \"/etc/root.der\""),
        ConfigCase(
            text: "[app_store\n",
            message: ":1: Error while parsing table header: expected ']', saw '\\n'"),
    ]

    @Test("griptrack --version and griptrackd --version give the release, the socket protocol and the schema")
    func versions() async throws {
        let runner = try CLIRunner()
        defer { runner.cleanUp() }
        let result = try await runner.run(["--version"])
        #expect(result.status == 0)
        #expect(result.stdout == VersionText.text + "\n", "\(result)")
        #expect(result.stdout.contains("\nprotocol \(ProtocolVersion.major).\(ProtocolVersion.minor)\ndatabase schema \""))
        let daemon = Process()
        daemon.executableURL = runner.executable.deletingLastPathComponent().appendingPathComponent("griptrackd")
        daemon.arguments = ["--version"]
        let output = Pipe()
        daemon.standardOutput = output
        try daemon.run()
        daemon.waitUntilExit()
        #expect(daemon.terminationStatus == 0)
        #expect(String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self) == VersionText.text + "\n")
    }

    @Test("replay --help shows the speed's default as the word to type (max)")
    func replayHelpShowsSpeedDefault() async throws {
        let runner = try CLIRunner()
        defer { runner.cleanUp() }
        let result = try await runner.run(["replay", "--help"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("default: max)"), "\(result.stdout)")
        #expect(!result.stdout.contains("SpeedOption"), "\(result.stdout)")
    }

    @Test("a bad configuration exits 5 naming the file, line and key", arguments: configCases)
    func configError(_ test: ConfigCase) async throws {
        let sandbox = try CLISandbox(config: test.text)
        defer { sandbox.cleanUp() }
        for command in [["list"], ["pro", "status"], ["replay", sandbox.capture("repeaters"), "--save"]] {
            let result = try await sandbox.plain(command + ["--db", sandbox.database, "--config", sandbox.config])
            #expect(result.status == 5, "\(command): \(result)")
            #expect(result.stderr == "griptrack: invalid configuration: \(sandbox.config)\(test.message)\n", "\(command)")
        }
        #expect(!FileManager.default.fileExists(atPath: sandbox.database), "nothing ran against the database")
    }

    @Test("a missing --config file exits 5")
    func missingConfig() async throws {
        let runner = try CLIRunner()
        defer { runner.cleanUp() }
        let result = try await runner.run(["list", "--config", "/nonexistent/griptrack.toml"])
        #expect(result.status == 5)
        #expect(result.stderr == "griptrack: invalid configuration: /nonexistent/griptrack.toml: the file does not exist\n")
    }

    @Test("the example configuration parses")
    func exampleConfig() async throws {
        let runner = try CLIRunner()
        defer { runner.cleanUp() }
        let example = CaptureFixtures.repositoryRoot.appendingPathComponent("systemd/griptrack.toml.example").path
        let result = try await runner.run(["pro", "status", "--config", example, "--db", runner.home.appendingPathComponent("g.db").path])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout == "Free: no Pro subscription\nFree: 0 of 5 recordings stored\n")
    }

    @Test("Pro features exit 3 on the free plan, naming the feature and how to get Pro")
    func proGates() async throws {
        let sandbox = try CLISandbox()
        defer { sandbox.cleanUp() }
        try await sandbox.run("replay", sandbox.capture("repeaters"), "--save")
        let how = "needs Pro (Free: no Pro subscription). Get Pro with an App Store subscription (`griptrack pro import FILE`) "
            + "or a grant from your administrator (`griptrack pro grant`); `griptrack pro status` shows your plan.\n"
        let cases: [([String], String)] = [
            (["trends"], "`griptrack trends`"),
            (["export", "1", "--format", "csv"], "`griptrack export`"),
            (["list", "--all"], "`griptrack list --all` (the full history)"),
            (["show", "1", "--svg", sandbox.directory.appendingPathComponent("x.svg").path], "The SVG chart (`griptrack show --svg`)"),
        ]
        for (arguments, feature) in cases {
            let result = try await sandbox.plain(arguments + ["--db", sandbox.database, "--config", sandbox.config])
            #expect(result.status == 3, "\(arguments): \(result)")
            #expect(result.stderr == "griptrack: \(feature) \(how)", "\(arguments)")
        }
        // `show --svg` refuses the chart alone: the recording is still shown, and no file is written.
        let chart = sandbox.directory.appendingPathComponent("x.svg").path
        let shown = try await sandbox.run("show", "1", "--no-plot", "--svg", chart)
        #expect(shown.stdout.hasPrefix("Recording 1"), "\(shown)")
        #expect(!FileManager.default.fileExists(atPath: chart))
        let stats = try await sandbox.run("stats")
        #expect(stats.status == 0)
        #expect(stats.stdout.hasSuffix("Pro adds trends and comparisons (`griptrack pro status`).\n"), "\(stats)")
    }

    @Test("export writes the Tindeq CSV layout with CRLF and every stored sample")
    func exportCSV() async throws {
        let sandbox = try CLISandbox(config: "[entitlements]\nbypass = true\n")
        defer { sandbox.cleanUp() }
        let saved = try await sandbox.run("replay", sandbox.capture("mtu247"), "--save")
        #expect(saved.status == 0)
        let result = try await sandbox.run("export", "1", "--format", "csv")
        #expect(result.status == 0, "\(result)")
        let lines = result.stdout.components(separatedBy: "\r\n")
        #expect(!result.stdout.replacingOccurrences(of: "\r\n", with: "").contains("\n"), "every line ends in CRLF")
        #expect(lines.first?.hasPrefix("date,") == true)
        #expect(lines.contains("unit,kg"))
        let header = try #require(lines.firstIndex(of: "time,weight"))
        #expect(lines[header - 1] == "", "an empty line separates the header block")
        let rows = lines[(header + 1)...].filter { !$0.isEmpty }
        struct Show: Decodable {
            struct Recording: Decodable { var samples: Int }
            var recording: Recording
        }
        let show = try JSONDecoder().decode(Show.self, from: Data(try await sandbox.run("show", "1", "--json").stdout.utf8))
        #expect(rows.count == show.recording.samples)
        #expect(rows.first?.hasPrefix("0.000000,") == true)
        #expect(rows.allSatisfy { $0.split(separator: ",").count == 2 && Double($0.split(separator: ",")[1]) != nil })
    }

    @Test("show prints the efforts table and a braille plot, and --svg writes a chart")
    func showAndSVG() async throws {
        let sandbox = try CLISandbox(config: "[entitlements]\nbypass = true\n")
        defer { sandbox.cleanUp() }
        try await sandbox.run("replay", sandbox.capture("repeaters"), "--save")
        let svg = sandbox.directory.appendingPathComponent("r.svg").path
        let result = try await sandbox.run("show", "1", "--svg", svg)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.hasPrefix("Recording 1: "))
        #expect(result.stdout.contains("6 efforts, max 22.4 kg, average 21.3 kg"))
        #expect(result.stdout.unicodeScalars.contains { (0x2801...0x28FF).contains($0.value) }, "a braille plot")
        #expect(result.stdout.contains("effort   1▀"), "efforts are marked under the plot")
        let chart = try String(contentsOfFile: svg, encoding: .utf8)
        #expect(chart.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\""))
        #expect(chart.contains("<polyline"))
        #expect(chart.components(separatedBy: "fill=\"#d6e6f5\"").count - 1 == 6, "six shaded efforts")
    }
}
