import ArgumentParser
import Foundation
import GripConfig
import GripSync
import Logging

/// `[sync]` of the configuration → the sync client's settings (docs/sync.md, "Configuration").
enum SyncSetup {
    /// The client for this configuration. Exits 5 naming the key when `[sync]` lacks `url` or `account`, or the
    /// password file cannot be used.
    static func client(_ config: GriptrackConfig) throws -> SyncClient {
        let file = config.path ?? GriptrackConfig.defaultPath
        guard let url = config.sync.url else {
            throw CLIExit.invalidInput.fail("\(SyncError.notConfigured(missing: "url")) (\(file))")
        }
        guard let account = config.sync.account else {
            throw CLIExit.invalidInput.fail("\(SyncError.notConfigured(missing: "account")) (\(file))")
        }
        let password: String?
        do {
            password = try config.syncPassword()
        } catch {
            throw CLIExit.invalidInput.fail("invalid configuration: \(error)")
        }
        let endpoint = SyncEndpoint(
            host: url.host, port: url.port, user: url.user, password: password, database: url.database,
            tls: SyncEndpoint.TLSMode(rawValue: url.sslMode) ?? .prefer, caFile: config.syncCAPath)
        let device = config.sync.deviceName ?? ProcessInfo.processInfo.hostName
        var logger = Logger(label: "griptrack.sync")
        logger.logLevel = .warning
        return SyncClient(settings: SyncSettings(endpoint: endpoint, account: account, deviceName: device), logger: logger)
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
