import ArgumentParser
import Foundation
import GripDaemon

/// The `griptrack` command line: each subcommand lives in its own file under `Commands/`.
@main
struct Griptrack: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "griptrack",
        abstract: "Grip-strength recordings from a Bluetooth LE dynamometer.",
        discussion: """
            Exit codes: 0 ok, 1 error, 2 usage, 3 Pro required or free limit reached, \
            4 Bluetooth or daemon unavailable, 5 invalid input (capture, signed data, config).
            """,
        version: VersionText.text,
        // Grouped as people reach for them: every session, looking back, once per sensor, once per Pi.
        groupedSubcommands: [
            CommandGroup(name: "Everyday", subcommands: [
                Record.self, Status.self, List.self, Show.self, Label.self, Delete.self, Protocols.self,
            ]),
            CommandGroup(name: "Analysis", subcommands: [
                Stats.self, TrendsCommand.self, AsymmetryCommand.self, Compare.self, Export.self,
            ]),
            CommandGroup(name: "Devices and data", subcommands: [
                Devices.self, Calibrate.self, Replay.self, Capture.self, Import.self, Simulate.self,
            ]),
            CommandGroup(name: "Plan and operator", subcommands: [
                Pro.self, Sync.self, Web.self, Referral.self, Doctor.self, Admin.self,
            ]),
        ]
    )

    /// Parses and runs, mapping ArgumentParser's usage exit code (64) to griptrack's 2 (docs/design.md, "Interfaces").
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            let code = exitCode(for: error)
            if code == .validationFailure {
                FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
                Foundation.exit(CLIExit.usage.rawValue)
            }
            exit(withError: error)
        }
    }
}

/// griptrack's exit codes (docs/design.md, "Interfaces"), in one place.
enum CLIExit: Int32 {
    case ok = 0, error = 1, usage = 2, proRequired = 3, unavailable = 4, invalidInput = 5

    /// Prints `message` to stderr and exits with this code.
    func fail(_ message: String) -> ExitCode {
        FileHandle.standardError.write(Data(("griptrack: " + message + "\n").utf8))
        return ExitCode(rawValue)
    }
}
