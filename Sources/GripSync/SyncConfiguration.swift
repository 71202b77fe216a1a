import Foundation
import GripConfig
import GripEntitlements
import Logging

/// `[sync]` of the configuration, ready for the daemon's sync service and for `griptrack sync`: the one mapping
/// from `griptrack.toml` to a ``SyncClient`` (docs/sync.md, "Configuration").
package struct SyncConfiguration: Sendable {
    /// Server, account and device.
    package var client: SyncClient
    /// `[sync] interval_seconds`.
    package var interval: Duration

    /// The sync settings of a configuration file.
    ///
    /// - Parameters:
    ///   - file: The parsed configuration.
    ///   - logger: The client's logger.
    /// - Returns: `nil` when `[sync] url` is not set (sync is off).
    /// - Throws: ``GripConfig/ConfigError`` naming `sync.account` when it is missing, or `sync.password_file` when
    ///   the password cannot be read safely.
    package static func from(_ file: GriptrackConfig, logger: Logger) throws(ConfigError) -> SyncConfiguration? {
        guard let url = file.sync.url else { return nil }
        guard let account = file.sync.account else {
            throw ConfigError(
                file: file.path ?? GriptrackConfig.defaultPath, line: nil, key: "sync.account",
                problem: "[sync] url is set but account is not; name the account the recordings belong to")
        }
        let endpoint = SyncEndpoint(
            host: url.host, port: url.port, user: url.user, password: try file.syncPassword(), database: url.database,
            tls: url.sslMode.flatMap(SyncEndpoint.TLSMode.init(rawValue:)), caFile: file.syncCAPath)
        let device = file.sync.deviceName ?? ProcessInfo.processInfo.hostName
        // Pro follows the account when [app_store] makes a verifier (Production needs app_apple_id): the pull
        // verifies everything it reads with it. Without one, this device's own imports and grants decide alone.
        let verifier = (try? file.verifierConfiguration()).flatMap { try? AppStoreVerifier(configuration: $0) }
        return SyncConfiguration(
            client: SyncClient(
                settings: SyncSettings(endpoint: endpoint, account: account, deviceName: device),
                accountVerifier: verifier, operatorKey: file.sync.operatorKey,
                accountToken: file.appStore.accountToken, logger: logger),
            interval: .milliseconds(Int64((file.sync.intervalSeconds * 1000).rounded())))
    }
}
