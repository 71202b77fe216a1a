/// How long sync waits for the server at each step (docs/sync.md, "Deadlines"). Every wait on the network has one:
/// past it the connection is closed, the push fails saying what it waited for, and the outbox stays as it was.
package struct SyncTimeouts: Sendable, Equatable {
    /// TCP connect, TLS, startup and login, until the server is ready for the first query.
    package var connect: Duration
    /// The session's settings, the schema migration and the schema check, under the advisory lock.
    package var migration: Duration
    /// One batch: its transaction from BEGIN to COMMIT.
    package var batch: Duration
    /// One read of the account's recordings (`list`, `show`, `stats --everywhere`).
    package var read: Duration
    /// The server's `lock_timeout` for the session: a statement that waits this long for a lock (another session
    /// holding `griptrack_schema`, or a row a batch must update) is cancelled by the server, which says so. Shorter
    /// than the deadlines above, so the server's own answer usually arrives before the connection is closed.
    package var lock: Duration

    /// The defaults: long enough for a Pi on a slow link pushing a week of recordings, short enough that a stuck
    /// server costs one interval of griptrackd's backoff, not the service.
    package static let standard = SyncTimeouts(
        connect: .seconds(15), migration: .seconds(30), batch: .seconds(120), read: .seconds(60), lock: .seconds(20))

    /// Creates deadlines.
    /// - Parameters: See the properties.
    package init(connect: Duration, migration: Duration, batch: Duration, read: Duration, lock: Duration) {
        self.connect = connect
        self.migration = migration
        self.batch = batch
        self.read = read
        self.lock = lock
    }
}

extension Duration {
    /// Whole milliseconds (at least 1), as PostgreSQL's `lock_timeout` and `statement_timeout` take them.
    var milliseconds: Int64 {
        let parts = components
        return max(1, parts.seconds * 1000 + parts.attoseconds / 1_000_000_000_000_000)
    }

    /// "30 s", "1.5 s", "250 ms": for messages.
    var spoken: String {
        let ms = milliseconds
        if ms < 1000 { return "\(ms) ms" }
        if ms % 1000 == 0 { return "\(ms / 1000) s" }
        return "\(Double(ms) / 1000) s"
    }
}
