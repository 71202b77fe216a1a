import GripStore

/// Everything sync can fail with. The description says what happened and what to do next; the server's own
/// message (cut and cleaned: ``ServerText``) comes after it, as detail.
package enum SyncError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What sync was waiting for when a deadline passed.
    package enum Wait: Sendable, Equatable {
        /// TCP connect, TLS, startup and login.
        case connect
        /// The session's settings, the schema migration and the schema check.
        case migration
        /// One batch's transaction.
        case batch(rows: Int)
        /// A read of the account's recordings.
        case read(String)
        /// One write that is not a push's batch (an operator's command, the hub's notification): what it does.
        case write(String)
    }

    /// Sync is a Pro feature and the resolver said no; `reason` is its sentence, verbatim.
    case proRequired(reason: String)
    /// No `[sync]` settings to sync with (no `url`, `account` or `device_name`).
    case notConfigured(missing: String)
    /// The server could not be reached or refused the login.
    case cannotConnect(target: String, detail: String)
    /// The TLS settings cannot be used (e.g. an unreadable `ca_file`).
    case tls(detail: String)
    /// `sslmode=require` (or `verify-full`) and the server answered that it does not speak TLS.
    case tlsUnsupported(target: String)
    /// `sslmode=prefer`, the server declined TLS and then asked for the password in cleartext: refused unsent.
    case cleartextPasswordRefused(target: String)
    /// The server did not answer within the deadline; the connection was closed.
    case timedOut(target: String, waitingFor: Wait, limit: Duration, detail: String?)
    /// The push was stopped from outside (griptrackd shutting down) before it finished.
    case interrupted
    /// The server's schema was migrated by a newer griptrack than this one.
    case serverSchemaNewer(serverVersion: Int, knownVersion: Int)
    /// The server's tables are not what griptrack's migrations made (a column's type, nullability or a key changed).
    case serverSchemaChanged(differences: [String])
    /// The server holds recordings with these recordings' UUIDs under another account; they were not sent.
    case notOwned(recordings: [String], account: String)
    /// A statement failed on the server (or the connection dropped mid-batch); nothing of the batch was kept.
    case server(operation: String, detail: String)
    /// The local database failed.
    case store(GripStoreError)

    /// Who reads a message: which section of the configuration to check, and what the failure cost, differ.
    package enum Audience: Sendable {
        /// A Pi's sync (`[sync]`): its outbox keeps what was not sent.
        case device
        /// An operator's command (`griptrack admin …`, `[hub]`): it changed nothing.
        case `operator`
        /// griptrack-hub (`[hub]`): the App Store sends again what was not stored.
        case hub

        var section: String { self == .device ? "[sync]" : "[hub]" }

        var consequence: String {
            switch self {
            case .device: SyncError.outboxKept
            case .operator: "The command changed nothing; run it again once the server answers."
            case .hub: "Nothing was acknowledged: the App Store sends what was not stored again later."
            }
        }
    }

    package var description: String { description(for: .device) }

    /// The operator's command's message (``Audience/operator``).
    package var operatorDescription: String { description(for: .operator) }

    /// What happened and what to do next, for `audience`.
    package func description(for audience: Audience) -> String {
        let kept = audience.consequence
        let section = audience.section
        switch self {
        case .proRequired(let reason):
            return "Sync needs Pro (\(reason)). Get Pro with an App Store subscription (`griptrack pro import FILE`) "
                + "or a grant (`griptrack pro grant`); changes keep collecting in the outbox and go out once Pro applies."
        case .notConfigured(let missing):
            return "Sync is not configured: [sync] \(missing) is not set. Add it to griptrack.toml (docs/config.md)."
        case .cannotConnect(let target, let detail):
            return "Could not connect to PostgreSQL at \(target). Check \(section) url and password_file and that the "
                + "server is up. \(kept) Detail: \(detail)"
        case .tls(let detail):
            return "The TLS settings of \(section) cannot be used: check ca_file and sslmode in the url. Detail: \(detail)"
        case .tlsUnsupported(let target):
            return "PostgreSQL at \(target) does not offer TLS, and \(section) url asks for it (sslmode=require). Turn on "
                + "ssl on the server, or use sslmode=disable only for a server on this machine or a network you "
                + "trust. \(kept)"
        case .cleartextPasswordRefused(let target):
            return "PostgreSQL at \(target) declined TLS and then asked for the password in cleartext; griptrack did "
                + "not send it (anyone on the path could read it). Turn on ssl on the server and use sslmode=require, "
                + "or have it ask for scram-sha-256. \(kept)"
        case .timedOut(let target, let wait, let limit, let detail):
            let what: String
            switch wait {
            case .connect:
                what = "PostgreSQL at \(target) did not complete the connection (connect, TLS and login) within "
                    + "\(limit.spoken)"
            case .migration:
                what = "PostgreSQL at \(target) accepted the connection but did not answer the migration within "
                    + "\(limit.spoken)"
            case .batch(let rows):
                what = "PostgreSQL at \(target) accepted the connection but did not answer a batch of \(rows) outbox "
                    + "rows within \(limit.spoken), so nothing of it was kept on the server"
            case .read(let operation):
                what = "PostgreSQL at \(target) accepted the connection but did not answer within \(limit.spoken) "
                    + "while sync tried to \(operation)"
            case .write(let operation):
                what = "PostgreSQL at \(target) accepted the connection but did not answer within \(limit.spoken) "
                    + "while griptrack tried to \(operation), so nothing of it was kept"
            }
            return what + "; the connection was closed. Check that the server is up and not overloaded, and that "
                + "no other session holds griptrack's tables locked. \(kept)"
                + (detail.map { " Detail: \($0)" } ?? "")
        case .interrupted:
            return "The push was stopped before it finished (griptrack is shutting down). \(kept)"
        case .serverSchemaNewer(let server, let known):
            return "The sync database has schema version \(server), newer than this griptrack knows (\(known)). "
                + "Upgrade griptrack on this device."
        case .serverSchemaChanged(let differences):
            return "The server's schema was changed outside griptrack, so nothing was sent: "
                + differences.joined(separator: "; ") + ". Restore those columns as griptrack's migrations made "
                + "them (docs/sync.md, \"Schema\") or point \(section) url at another database. \(kept)"
        case .notOwned(let recordings, let account):
            let count = recordings.count == 1 ? "1 recording was" : "\(recordings.count) recordings were"
            return "\(count) not sent: the server already holds recordings with the same UUIDs under an account "
                + "other than \(account) (\(recordings.joined(separator: ", "))). They stay in the outbox and the "
                + "rest was sent. If [sync] account was changed since they were first pushed, set it back; if this "
                + "database was copied from another account's device, delete those rows on the server or the "
                + "recordings here (docs/sync.md, \"Conflicts\")."
        case .server(let operation, let detail):
            return "PostgreSQL failed to \(operation). It ran in one transaction, so nothing of it was kept on the "
                + "server. \(kept) Detail: \(detail)"
        case .store(let error):
            return error.description
        }
    }
}

extension SyncError {
    /// What a failed push tells a Pi's owner about their data.
    static let outboxKept = "Nothing was lost: the outbox is kept and sent on the next try."

    /// A deadline's error that says how long the whole push waited, when that is clearly longer than the step's own
    /// limit (the account pull waited before it); any other error as it is.
    func waitedInAll(_ elapsed: Duration) -> SyncError {
        guard case .timedOut(let target, let wait, let limit, let detail) = self, elapsed > limit + .seconds(2) else {
            return self
        }
        let total = "the push waited \(elapsed.spokenWhole) in all (the account pull before it timed out too)"
        return .timedOut(target: target, waitingFor: wait, limit: limit, detail: detail.map { $0 + "; " + total } ?? total)
    }
}

extension Duration {
    /// Whole seconds, for messages: "61 s".
    var spokenWhole: String { "\(Int((Double(milliseconds) / 1000).rounded())) s" }
}
