import GripStore

/// Everything sync can fail with. The description says what happened and what to do next; the server's own
/// message stays in the associated values.
public enum SyncError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Sync is a Pro feature and the resolver said no; `reason` is its sentence, verbatim.
    case proRequired(reason: String)
    /// No `[sync]` settings to sync with (no `url`, `account` or `device_name`).
    case notConfigured(missing: String)
    /// The server could not be reached or refused the login.
    case cannotConnect(target: String, detail: String)
    /// The TLS settings cannot be used (e.g. an unreadable `ca_file`).
    case tls(detail: String)
    /// The server's schema was migrated by a newer griptrack than this one.
    case serverSchemaNewer(serverVersion: Int, knownVersion: Int)
    /// A statement failed on the server (or the connection dropped mid-batch); nothing of the batch was kept.
    case server(operation: String, detail: String)
    /// The local database failed.
    case store(GripStoreError)

    public var description: String {
        switch self {
        case .proRequired(let reason):
            return "Sync needs Pro (\(reason)). Get Pro with an App Store subscription (`griptrack pro import FILE`) "
                + "or a grant (`griptrack pro grant`); changes keep collecting in the outbox and go out once Pro applies."
        case .notConfigured(let missing):
            return "Sync is not configured: [sync] \(missing) is not set. Add it to griptrack.toml (docs/config.md)."
        case .cannotConnect(let target, let detail):
            return "Could not connect to PostgreSQL at \(target) (\(detail)). Check [sync] url and password_file and "
                + "that the server is up; nothing was lost, the outbox is sent on the next try."
        case .tls(let detail):
            return "The TLS settings of [sync] cannot be used (\(detail)). Check ca_file and sslmode in the url."
        case .serverSchemaNewer(let server, let known):
            return "The sync database has schema version \(server), newer than this griptrack knows (\(known)). "
                + "Upgrade griptrack on this device."
        case .server(let operation, let detail):
            return "PostgreSQL failed to \(operation) (\(detail)). It ran in one transaction, so nothing of it was kept "
                + "on the server; the outbox is sent again on the next try."
        case .store(let error):
            return error.description
        }
    }
}
