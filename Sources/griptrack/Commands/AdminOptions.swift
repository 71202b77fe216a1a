import ArgumentParser
import Foundation
import GripConfig
import GripEntitlements
import GripSync
import Logging

/// What the `admin` commands share: the configuration (for the operator role), the key file, JSON output.
struct AdminOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The configuration file (default: /etc/griptrack/griptrack.toml).", valueName: "path"))
    var config: String?

    @Option(name: .customLong("key"), help: ArgumentHelp(
        "The operator's private key file (`griptrack admin key generate --out FILE`); grant and revoke need it.",
        valueName: "file"))
    var keyFile: String?

    @Flag(help: "Print JSON instead of text.")
    var json = false

    /// The operator role's database, from `[hub]`. Exits 5 when it is not configured.
    func database() throws -> OperatorDatabase {
        let file: GriptrackConfig
        do {
            file = try GriptrackConfig.load(path: config ?? GriptrackConfig.defaultPath, required: config != nil)
        } catch {
            throw CLIExit.invalidInput.fail("invalid configuration: \(error)")
        }
        guard let url = file.hub.url else {
            throw CLIExit.invalidInput.fail(
                "[hub] url is not set in \(file.path ?? GriptrackConfig.defaultPath); admin commands use the operator "
                    + "role it names (docs/config.md)")
        }
        let password: String?
        do {
            password = try file.hubPassword()
        } catch {
            throw CLIExit.invalidInput.fail("invalid configuration: \(error)")
        }
        var logger = Logger(label: "griptrack.admin")
        logger.logLevel = .warning
        return OperatorDatabase(
            endpoint: SyncEndpoint(
                host: url.host, port: url.port, user: url.user, password: password, database: url.database,
                tls: url.sslMode.flatMap(SyncEndpoint.TLSMode.init(rawValue:)), caFile: file.hubCAPath),
            logger: logger)
    }

    /// The operator's private key. Exits 5 when the file is missing, readable by others or not a key.
    func signingKey() throws -> OperatorSigningKey {
        guard let keyFile else {
            throw CLIExit.usage.fail("give the operator's private key with --key FILE (`griptrack admin key generate --out FILE` makes one)")
        }
        var info = stat()
        guard stat(keyFile, &info) == 0 else {
            throw CLIExit.invalidInput.fail("cannot read the operator key \(keyFile); create one with `griptrack admin key generate --out \(keyFile)`")
        }
        guard info.st_mode & 0o077 == 0 else {
            throw CLIExit.invalidInput.fail(
                "\(keyFile) is readable by its group or others (mode \(String(info.st_mode & 0o777, radix: 8))); "
                    + "make it private with `chmod 600 \(keyFile)`")
        }
        guard let text = try? String(contentsOfFile: keyFile, encoding: .utf8), let key = OperatorSigningKey(text) else {
            throw CLIExit.invalidInput.fail("\(keyFile) does not hold an operator key (32 bytes in base64)")
        }
        return key
    }
}
