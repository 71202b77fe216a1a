import ArgumentParser
import GripConfig
import GripProtocol

extension Griptrack {
    /// `griptrack protocols`: the protocols `--protocol` takes by name, built-in and configured.
    struct Protocols: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "protocols",
            abstract: "List the protocols --protocol takes by name, with their notation.",
            discussion: """
                The built-ins, then the configuration's [protocols] (docs/protocols.md). `record`, `show` and \
                `label` take any of these names, or notation itself. With --json it prints what the web screen's \
                GET /api/protocols serves.
                """
        )

        @Option(help: ArgumentHelp("The configuration file (default: /etc/griptrack/griptrack.toml).", valueName: "path"))
        var config: String?

        @Flag(help: "Print JSON instead of text.")
        var json = false

        func run() throws {
            let file: GriptrackConfig
            do {
                file = try GriptrackConfig.load(path: config ?? GriptrackConfig.defaultPath, required: config != nil)
            } catch {
                throw CLIExit.invalidInput.fail("invalid configuration: \(error)")
            }
            let list = ProtocolListJSON(configured: file.protocols.map { ($0.name, $0.notation) })
            if json {
                try printJSON(list)
                return
            }
            let width = (list.protocols.map(\.name.count).max() ?? 0) + 2
            print("Built-in:")
            for entry in list.protocols where entry.source == "built-in" {
                print("  " + entry.name.rightPadded(width) + entry.notation)
            }
            let own = list.protocols.filter { $0.source == "config" }
            guard !own.isEmpty else {
                print("\nNone of your own: add them to [protocols] in \(file.path ?? GriptrackConfig.defaultPath), e.g.\n"
                    + "  \"board repeaters\" = \"repeaters 6x 7:3 @80%\"")
                return
            }
            print("\nFrom \(file.path ?? GriptrackConfig.defaultPath):")
            for entry in own { print("  " + entry.name.rightPadded(width) + entry.notation) }
        }
    }
}
