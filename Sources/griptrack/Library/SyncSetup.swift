import ArgumentParser
import Foundation
import GripConfig
import GripDaemon
import GripSync
import Logging

/// `[sync]` of the configuration → the sync client's settings (docs/sync.md, "Configuration").
enum SyncSetup {
    /// The client for this configuration. Exits 5 naming the key when `[sync]` lacks `url` or `account`, or the
    /// password file cannot be used.
    static func client(_ config: GriptrackConfig) throws -> SyncClient {
        var logger = Logger(label: "griptrack.sync")
        logger.logLevel = .warning
        let sync: DaemonSync?
        do {
            sync = try DaemonSync.from(config, logger: logger)
        } catch {
            throw CLIExit.invalidInput.fail("invalid configuration: \(error)")
        }
        guard let sync else {
            throw CLIExit.invalidInput.fail(
                "\(SyncError.notConfigured(missing: "url")) (\(config.path ?? GriptrackConfig.defaultPath))")
        }
        return sync.client
    }

    /// The exit for a sync failure: 3 when Pro is missing, 1 otherwise (the outbox is kept either way).
    static func exit(_ error: SyncError) -> ExitCode {
        switch error {
        case .proRequired: CLIExit.proRequired.fail(error.description)
        case .notConfigured, .tls: CLIExit.invalidInput.fail(error.description)
        default: CLIExit.error.fail(error.description)
        }
    }
}
