import ArgumentParser
import Foundation
import GripSimulator

extension Griptrack {
    /// `griptrack simulate`: writes the catalogued synthetic Progressor captures.
    struct Simulate: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "simulate",
            abstract: "Write simulated device sessions as btsnoop captures (the replay test fixtures).",
            discussion: """
                Each catalogued session is rendered deterministically, byte for byte, as btmon or an Android \
                HCI log would have recorded it. `griptrack simulate --all -o captures` rewrites the fixtures; \
                then `GRIPTRACK_UPDATE_GOLDEN=1 swift test` rewrites their expected outputs.
                """
        )

        @Argument(help: "Session names to write (see --list; benchmark sessions are written only by name).")
        var names: [String] = []

        @Flag(help: "Write every catalogued session.")
        var all = false

        @Flag(help: "List the catalogued sessions and exit.")
        var list = false

        @Option(name: .shortAndLong, help: "Directory to write <name>.btsnoop files into.")
        var output: String = "."

        func validate() throws {
            if !list && !all && names.isEmpty {
                throw ValidationError("Name at least one session, or pass --all or --list.")
            }
        }

        func run() throws {
            if list {
                for entry in CaptureCatalog.all { print("\(entry.name)\t\(entry.summary)") }
                for entry in CaptureCatalog.benchmarks { print("\(entry.name)\t(benchmark) \(entry.summary)") }
                return
            }
            let wanted = all ? CaptureCatalog.all.map(\.name) : names
            for name in wanted {
                guard let entry = (CaptureCatalog.all + CaptureCatalog.benchmarks).first(where: { $0.name == name })
                else {
                    throw CLIExit.usage.fail("no session named \(name); `griptrack simulate --list` shows them")
                }
                let bytes = entry.session.render()
                let path = URL(fileURLWithPath: output).appendingPathComponent("\(name).btsnoop")
                try Data(bytes).write(to: path)
                print("wrote \(path.path) (\(bytes.count) bytes)")
            }
        }
    }
}
