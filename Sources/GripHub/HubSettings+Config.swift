import Foundation
import GripConfig
import GripEntitlements
import GripSync

extension HubSettings {
    /// The hub's settings from `griptrack.toml`: `[hub]` for where it listens and stores, `[app_store]` for what
    /// it accepts (the same checks as every Pi's).
    ///
    /// - Parameter file: The configuration.
    /// - Returns: The settings.
    /// - Throws: ``ConfigError`` naming the key: no `[hub] url`, an unreadable password file, an `[app_store]` the
    ///   verifier refuses (Production without `app_apple_id`).
    package static func from(_ file: GriptrackConfig) throws(ConfigError) -> HubSettings {
        let path = file.path ?? GriptrackConfig.defaultPath
        guard let url = file.hub.url else {
            throw ConfigError(
                file: path, line: nil, key: "hub.url",
                problem: "griptrack-hub needs the PostgreSQL server: set [hub] url (an operator role, docs/account.md)")
        }
        let verifier: AppStoreVerifier
        do {
            verifier = try AppStoreVerifier(configuration: try file.verifierConfiguration())
        } catch let error as ConfigError {
            throw error
        } catch {
            throw ConfigError(file: path, line: nil, key: "app_store", problem: "\(error)")
        }
        let endpoint = SyncEndpoint(
            host: url.host, port: url.port, user: url.user, password: try file.hubPassword(), database: url.database,
            tls: url.sslMode.flatMap(SyncEndpoint.TLSMode.init(rawValue:)), caFile: file.hubCAPath)
        return HubSettings(
            host: file.hub.listen.host, port: file.hub.listen.port, verifier: verifier, database: endpoint,
            requestsPerMinute: file.hub.requestsPerMinute)
    }
}
