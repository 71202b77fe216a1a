import ArgumentParser

/// The `griptrack` command line: each subcommand lives in its own file under `Commands/`.
@main
struct Griptrack: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "griptrack",
        abstract: "Grip-strength recordings from a Bluetooth LE dynamometer.",
        subcommands: []
    )
}
