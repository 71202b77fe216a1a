import PostgresNIO

/// The one connection a push uses for everything it does: the account pulls, the entitlement rows, the batches
/// (docs/sync.md, "Commands"). Opened and prepared (deadlines, migrations, the schema check) on first use, so a push
/// with nothing to do opens none; closed by whoever made the session, when the push ends.
///
/// A wait that fails may have closed the connection (a deadline does), so the session drops it then, and the next
/// use opens a new one: a pull that timed out does not fail the push after it.
///
/// - Important: One task uses a session at a time (a push is sequential); it is not `Sendable`.
final class PushSession {
    private let client: SyncClient
    private var connection: PostgresConnection?

    init(client: SyncClient) {
        self.client = client
    }

    /// Runs `body` on the session's connection, opening it first if needed.
    func run<T>(_ body: (PostgresConnection) async throws(SyncError) -> T) async throws(SyncError) -> T {
        let connection = try await open()
        do {
            return try await body(connection)
        } catch {
            await close()
            throw error
        }
    }

    /// The open, prepared connection.
    func open() async throws(SyncError) -> PostgresConnection {
        if let connection { return connection }
        let opened = try await client.connect()
        do {
            try await client.prepare(opened)
        } catch {
            try? await opened.close()
            throw error
        }
        connection = opened
        return opened
    }

    /// Closes the connection, if one is open.
    func close() async {
        guard let connection else { return }
        self.connection = nil
        try? await connection.close()
    }
}
