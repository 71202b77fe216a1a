import Foundation
import GripConfig
import GripTestSupport
import Testing

/// A configuration error is reported by every command that reads the file, naming file, line and key; never passed
/// over, never a message without a place.
@Suite("Configuration errors are reported")
struct ConfigReportingTests {
    static func regression(_ name: String) -> String {
        CaptureFixtures.repositoryRoot.appendingPathComponent("Tests/GriptrackCLITests/Regressions/\(name)").path
    }

    @Test("invalid UTF-8, even in a comment, is an error naming its line and byte")
    func invalidUTF8NamesItsLine() async throws {
        let path = Self.regression("invalid-utf8-in-comment.toml")
        #expect(throws: ConfigError(
            file: path, line: 3, key: nil,
            problem: "byte 35 is not UTF-8; a configuration file is UTF-8 text, comments included (re-save it as UTF-8)")
        ) { try GriptrackConfig.load(path: path, required: true) }
    }

    @Test("a file that is UTF-8 throughout still loads")
    func validUTF8Loads() async throws {
        let sandbox = try CLISandbox(config: "# café ☕\n[entitlements]\nbypass = true\n")
        defer { sandbox.cleanUp() }
        #expect(try GriptrackConfig.load(path: sandbox.config, required: true).entitlements.bypass)
    }

    @Test("status reports an invalid configuration with exit 5, even with a database and no daemon")
    func statusReportsInvalidConfiguration() async throws {
        let sandbox = try CLISandbox()
        defer { sandbox.cleanUp() }
        #expect(try await sandbox.run("list").status == 0)  // creates the database
        let config = Self.regression("status-ignores-invalid-config.toml")
        let result = try await sandbox.plain([
            "status", "--config", config, "--db", sandbox.database, "--socket", sandbox.directory.path + "/none.sock"])
        #expect(result.status == 5, "\(result)")
        // Both of the file's problems, in line order.
        #expect(result.stderr.hasPrefix("griptrack: invalid configuration: \(config):2: device.profile: expected one of"), "\(result)")
        #expect(result.stderr.contains("\n\(config):3: device.foo: unknown key"), "\(result)")
    }

    @Test("pro status and list report an invalid configuration with exit 5 whichever library they use",
          arguments: [["pro", "status"], ["list"]])
    func libraryCommandsReportInvalidConfiguration(command: [String]) async throws {
        let sandbox = try CLISandbox()
        defer { sandbox.cleanUp() }
        let config = Self.regression("invalid-utf8-in-comment.toml")
        let result = try await sandbox.plain(command + [
            "--config", config, "--socket", sandbox.directory.path + "/none.sock"])
        #expect(result.status == 5, "\(result)")
        #expect(result.stderr.hasPrefix("griptrack: invalid configuration: \(config):3: byte 35 is not UTF-8"), "\(result)")
    }
}
