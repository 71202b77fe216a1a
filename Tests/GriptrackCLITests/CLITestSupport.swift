import Foundation
import GripTestSupport

/// A temporary database and configuration for one CLI test, with helpers to run griptrack on them.
struct CLISandbox {
    let runner: CLIRunner
    let directory: URL
    var database: String { directory.appendingPathComponent("griptrack.db").path }
    var config: String { directory.appendingPathComponent("griptrack.toml").path }

    init(config text: String = "[entitlements]\nbypass = false\n") throws {
        runner = try CLIRunner()
        directory = runner.home
        try Data(text.utf8).write(to: URL(fileURLWithPath: config))
    }

    /// Runs a store command with `--db` and `--config` appended.
    @discardableResult
    func run(_ arguments: String..., stdin: String = "") async throws -> CLIRunner.Result {
        try await runner.run(arguments + ["--db", database, "--config", config], stdin: stdin)
    }

    /// Runs without adding options.
    @discardableResult
    func plain(_ arguments: [String], stdin: String = "") async throws -> CLIRunner.Result {
        try await runner.run(arguments, stdin: stdin)
    }

    func capture(_ name: String) -> String { CaptureFixtures.url("progressor-\(name).btsnoop").path }

    func cleanUp() { runner.cleanUp() }
}

/// The App Store vectors checked into the entitlements tests.
enum Vectors {
    static let directory = CaptureFixtures.repositoryRoot.appendingPathComponent("Tests/GripEntitlementsTests/Vectors")

    static func path(_ relative: String) -> String { directory.appendingPathComponent(relative).path }
}
