import ArgumentParser
import Foundation
import GripConfig
import GripEntitlements
import GripProtocol
import GripStore

/// Options every store command shares: the database, the configuration, and JSON output.
struct CommonOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "The database file (personal mode).",
        discussion: "Default: $XDG_DATA_HOME/griptrack/griptrack.db, or ~/.local/share/griptrack/griptrack.db.",
        valueName: "path"))
    var db: String?

    @Option(help: ArgumentHelp("The configuration file (default: /etc/griptrack/griptrack.toml).", valueName: "path"))
    var config: String?

    @Flag(help: "Print JSON instead of text.")
    var json = false

    /// The database path: `--db`, else the personal default.
    var databasePath: String {
        if let db { return db }
        let environment = ProcessInfo.processInfo.environment
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
            return data + "/griptrack/griptrack.db"
        }
        let home = environment["HOME"] ?? NSHomeDirectory()
        return home + "/.local/share/griptrack/griptrack.db"
    }

    /// The configuration (`--config` must exist; the system file may be missing). Exits 5 when it is invalid.
    func loadConfig() throws -> GriptrackConfig {
        do {
            return try GriptrackConfig.load(path: config ?? GriptrackConfig.defaultPath, required: config != nil)
        } catch {
            throw CLIExit.invalidInput.fail("invalid configuration: \(error)")
        }
    }

    /// Opens the store. Exits 1 when it cannot.
    func openStore() throws -> RecordingStore {
        do {
            return try RecordingStore(path: databasePath) { _ in
                // An upgrade can rewrite every sample: say why the command is quiet for a while.
                FileHandle.standardError.write(
                    Data("Upgrading the database at \(databasePath) to this version; a large file takes a while…\n".utf8))
            }
        } catch {
            throw CLIExit.storeFailure(error)
        }
    }

    /// Configuration, store and access context, as most commands need them.
    func session() throws -> Session {
        let config = try loadConfig()
        return Session(config: config, store: try openStore(), context: AccessContext(bypass: config.entitlements.bypass))
    }
}

/// What a store command works with.
struct Session {
    let config: GriptrackConfig
    let store: RecordingStore
    let context: AccessContext

    /// Access now (the resolver's answer and the stored count).
    func status(now: Date = Date()) throws -> AccessStatus {
        do {
            return try store.accessStatus(context, now: now)
        } catch {
            throw CLIExit.storeFailure(error)
        }
    }

    /// Exits 3 unless the account has Pro, naming the feature and how to get Pro.
    @discardableResult
    func requirePro(_ feature: String) throws -> AccessStatus {
        let status = try status()
        guard status.access.isPro else {
            throw CLIExit.proRequired.fail(
                "\(feature) needs Pro (\(status.access.reason)). Get Pro with an App Store subscription "
                    + "(`griptrack pro import FILE`) or a grant from your administrator (`griptrack pro grant`); "
                    + "`griptrack pro status` shows your plan.")
        }
        return status
    }

    /// How many of the newest recordings this account sees: 5 on the free plan, all with Pro.
    func visibleLimit(_ status: AccessStatus) -> Int? {
        status.access.isPro ? nil : status.freeLimit
    }
}

/// Runs a store call, mapping its error to griptrack's exit code.
func storeCall<T>(_ body: () throws(GripStoreError) -> T) throws -> T {
    do {
        return try body()
    } catch {
        throw CLIExit.storeFailure(error)
    }
}

extension CLIExit {
    /// The one mapping of store errors to exit codes (docs/design.md, "Interfaces"): refusals 3, everything else 1.
    static func storeFailure(_ error: GripStoreError) -> ExitCode {
        switch error {
        case .refused: CLIExit.proRequired.fail(error.description)
        case .recordingNotFound: CLIExit.error.fail(error.description)
        case .implausibleDate: CLIExit.invalidInput.fail(error.description)
        default: CLIExit.error.fail(error.description)
        }
    }
}

/// Writes JSON (sorted keys, snake_case, pretty) to stdout, with the encoder the web app's API documents use.
func printJSON(_ value: some Encodable) throws {
    FileHandle.standardOutput.write(try JSONOutput.document(value))
}

/// Who is running the command, for the audit log.
var currentUser: String {
    ProcessInfo.processInfo.environment["USER"] ?? ProcessInfo.processInfo.environment["LOGNAME"] ?? "uid \(getuid())"
}

/// A recording id argument (`griptrack show 12`).
struct RecordingIDArgument: ExpressibleByArgument {
    var id: RecordingID

    init?(argument: String) {
        guard let value = Int64(argument), value > 0 else { return nil }
        id = RecordingID(rawValue: value)
    }
}

/// A recording named on the command line: a local id (`12`), or with `--everywhere` the start of its UUID as
/// `list --everywhere` shows it (`1b4e28ba`).
struct RecordingReference: ExpressibleByArgument {
    var text: String
    /// Set when the text is a positive integer.
    var localID: RecordingID?

    init?(argument: String) {
        let isUUIDStart = !argument.isEmpty && argument.allSatisfy { $0.isHexDigit || $0 == "-" }
        localID = Int64(argument).flatMap { $0 > 0 ? RecordingID(rawValue: $0) : nil }
        guard localID != nil || isUUIDStart else { return nil }
        text = argument
    }

    /// The local id, or a usage error saying that a UUID names a recording on the sync server.
    func requireLocal() throws -> RecordingID {
        guard let localID else {
            throw ValidationError("'\(text)' is not a recording id; to read a recording from the sync server by its UUID, add --everywhere.")
        }
        return localID
    }
}

/// A date argument: `2027-03-01` (UTC midnight) or ISO 8601 with time.
struct DateArgument: ExpressibleByArgument {
    var date: Date

    init?(argument: String) {
        guard let date = ExpiryText.date(from: argument) else { return nil }
        self.date = date
    }

    static var defaultCompletionKind: CompletionKind { .default }
}
