import Foundation
import GripStore
import Logging
import PostgresNIO

/// Pushes a store's outbox to PostgreSQL and reads the account's recordings back (docs/sync.md).
///
/// Each call opens one connection, applies missing server migrations (under the advisory lock) and closes it; a
/// long-running caller calls again on its own schedule.
public struct SyncClient: Sendable {
    public let settings: SyncSettings
    let logger: Logger

    /// Creates a client.
    ///
    /// - Parameters:
    ///   - settings: Server, account and device.
    ///   - logger: Where connection and push events go (info and below).
    public init(settings: SyncSettings, logger: Logger) {
        self.settings = settings
        self.logger = logger
    }

    // MARK: - Push

    /// Ships the outbox in batches until it is empty. Sync is Pro: the resolver is asked first, and a free plan is
    /// refused before any connection (the outbox keeps filling, so a later upgrade ships everything).
    ///
    /// Each batch is one PostgreSQL transaction; its outbox rows are acknowledged in SQLite only after it commits.
    /// A failure mid-batch leaves the server without any of the batch and the outbox as it was; the next push
    /// sends it again, and the idempotent upserts absorb what an earlier try already committed.
    ///
    /// - Parameters:
    ///   - store: The local database.
    ///   - context: The configuration's bypass flag and the free plan, as every access decision takes them.
    ///   - now: The clock for the access decision.
    ///   - progress: Called after each committed batch.
    /// - Returns: What was shipped.
    /// - Throws: ``SyncError``; the failure is also kept in the store for `griptrack sync status`.
    @discardableResult
    public func push(
        from store: RecordingStore, context: AccessContext, now: Date = Date(),
        progress: (PushProgress) -> Void = { _ in }
    ) async throws(SyncError) -> PushSummary {
        do throws(SyncError) {
            let summary = try await pushUnrecorded(from: store, context: context, now: now, progress: progress)
            do throws(GripStoreError) {
                if summary.rows == 0 { try store.recordSyncSuccess() }
            } catch {
                throw SyncError.store(error)
            }
            return summary
        } catch {
            try? store.recordSyncFailure(error.description)
            throw error
        }
    }

    private func pushUnrecorded(
        from store: RecordingStore, context: AccessContext, now: Date, progress: (PushProgress) -> Void
    ) async throws(SyncError) -> PushSummary {
        try SyncGate.requirePro(store: store, context: context, now: now)
        // Nothing waiting: no connection, so an idle Pi neither wakes the server nor its own network every interval.
        do throws(GripStoreError) {
            if try store.pendingOutbox(limit: 1).isEmpty { return PushSummary() }
        } catch {
            throw .store(error)
        }
        let started = ContinuousClock.now
        return try await withConnection { connection throws(SyncError) in
            var summary = PushSummary()
            while true {
                let entries: [OutboxEntry]
                do throws(GripStoreError) {
                    entries = try store.pendingOutbox(limit: settings.batchSize)
                } catch {
                    throw .store(error)
                }
                guard !entries.isEmpty else { break }
                // A server that went away between batches (restart, failover) closes the connection; a query sent
                // on it then may never be answered, so stop here and let the next push reconnect.
                guard !connection.isClosed else {
                    throw .server(operation: "send the next batch", detail: "the server closed the connection")
                }
                let plan = try PushPlan(entries, store: store)
                try await applyWithDeadline(plan, on: connection)
                // After the commit, never before: a crash here re-sends the batch, which the upserts absorb.
                do throws(GripStoreError) {
                    try store.acknowledgeOutbox(upTo: plan.lastID)
                } catch {
                    throw .store(error)
                }
                summary.add(plan)
                summary.elapsed = ContinuousClock.now - started
                progress(PushProgress(summary: summary, pendingAfter: (try? store.syncStatus().pendingRows) ?? 0))
            }
            return summary
        }
    }

    /// Applies one batch in one transaction. If the server does not answer within ``SyncSettings/batchTimeout``,
    /// the connection is closed (which fails the transaction: nothing of the batch is kept) and the push fails.
    private func applyWithDeadline(_ plan: PushPlan, on connection: PostgresConnection) async throws(SyncError) {
        let settings = settings
        let logger = logger
        do {
            try await withThrowingTaskGroup(of: Bool.self) { group in
                group.addTask {
                    try await connection.withTransaction(logger: logger) { connection in
                        try await ServerWrites.apply(
                            plan, account: settings.account, deviceName: settings.deviceName, on: connection,
                            logger: logger)
                    }
                    return true
                }
                group.addTask {
                    try await Task.sleep(for: settings.batchTimeout)
                    try? await connection.close()
                    return false
                }
                let finished = try await group.next() ?? false
                group.cancelAll()
                if !finished {
                    throw SyncError.server(
                        operation: "apply a batch of \(plan.rows) outbox rows",
                        detail: "no answer within \(settings.batchTimeout); the connection was closed")
                }
            }
        } catch {
            throw SyncError(error, operation: "apply a batch of \(plan.rows) outbox rows")
        }
    }

    // MARK: - Schema

    /// Connects and applies missing server migrations.
    ///
    /// - Returns: The versions this call applied (empty when the schema was current).
    /// - Throws: ``SyncError``.
    @discardableResult
    public func migrate() async throws(SyncError) -> [Int] {
        try await withConnection(migrating: false) { connection throws(SyncError) in
            try await ServerSchema.migrate(connection, logger: logger)
        }
    }

    // MARK: - Connection

    /// Opens a connection, migrates (unless told not to), runs `body`, and closes the connection.
    func withConnection<T>(
        migrating: Bool = true, _ body: (PostgresConnection) async throws(SyncError) -> T
    ) async throws(SyncError) -> T {
        let configuration = try settings.endpoint.connectionConfiguration()
        let connection: PostgresConnection
        do {
            connection = try await PostgresConnection.connect(configuration: configuration, id: 1, logger: logger)
        } catch {
            let detail = (error as? PSQLError).map(SyncError.detail) ?? String(describing: error)
            throw .cannotConnect(target: settings.endpoint.displayName, detail: detail)
        }
        do {
            if migrating { try await ServerSchema.migrate(connection, logger: logger) }
            let result = try await body(connection)
            try? await connection.close()
            return result
        } catch {
            try? await connection.close()
            throw error
        }
    }
}

/// What a push shipped so far.
public struct PushSummary: Sendable, Equatable {
    /// Outbox rows acknowledged.
    public var rows = 0
    /// Batches (PostgreSQL transactions) committed.
    public var batches = 0
    /// Recordings upserted (a recording in two batches counts twice).
    public var recordings = 0
    /// Sample chunks and samples sent.
    public var chunks = 0
    public var samples = 0
    /// Chunk bytes sent.
    public var bytes = 0
    /// Tombstones and subscription events sent.
    public var tombstones = 0
    public var subscriptionEvents = 0
    /// Wall time of the push.
    public var elapsed: Duration = .zero

    /// An empty summary.
    public init() {}

    mutating func add(_ plan: PushPlan) {
        rows += plan.rows
        batches += 1
        for item in plan.items {
            switch item {
            case .recording(_, let chunks, _):
                recordings += 1
                self.chunks += chunks.count
                samples += chunks.reduce(0) { $0 + $1.sampleCount }
                bytes += chunks.reduce(0) { $0 + $1.bytes.count }
            case .tombstone: tombstones += 1
            case .entitlement: subscriptionEvents += 1
            }
        }
    }
}

/// Progress after a committed batch.
public struct PushProgress: Sendable, Equatable {
    /// Everything shipped so far in this push.
    public var summary: PushSummary
    /// Outbox rows still waiting.
    public var pendingAfter: Int
}
