import Foundation
import GripEntitlements
import GripStore
import Logging
import PostgresNIO

/// Pushes a store's outbox to PostgreSQL and reads the account's recordings back (docs/sync.md).
///
/// Each call opens one connection (a push too, whatever it pulls and sends first: ``PushSession``), applies missing
/// server migrations (under the advisory lock) and closes it; a long-running caller calls again on its own schedule.
package struct SyncClient: Sendable {
    package let settings: SyncSettings
    let logger: Logger
    /// This device's App Store verifier: with one, every push first pulls the account's stored notifications and
    /// applies what it verifies (``pullAccount(into:verifier:context:now:)``), so Pro follows the account.
    package let accountVerifier: AppStoreVerifier?
    /// The operator's public key (`[sync] operator_key`): with one, every push also applies the account's central
    /// grants and revocations that verify under it (``AccountGrantRule``).
    package let operatorKey: OperatorKey?
    /// `[app_store] account_token`: the UUID a pulled purchase must carry; `nil` takes the account's own UUID from
    /// the server's `accounts` row (one the account's role can read but not write).
    package let accountToken: UUID?

    /// Creates a client.
    ///
    /// - Parameters:
    ///   - settings: Server, account and device.
    ///   - accountVerifier: The verifier the account's App Store data must pass here; `nil` pulls none.
    ///   - operatorKey: The key the account's central grants must be signed with; `nil` pulls none.
    ///   - accountToken: The `appAccountToken` pulled purchases must carry; `nil` for the account's own UUID.
    ///   - logger: Where connection and push events go (info and below).
    package init(
        settings: SyncSettings, accountVerifier: AppStoreVerifier? = nil, operatorKey: OperatorKey? = nil,
        accountToken: UUID? = nil, logger: Logger
    ) {
        self.settings = settings
        self.accountVerifier = accountVerifier
        self.operatorKey = operatorKey
        self.accountToken = accountToken
        self.logger = logger
    }

    // MARK: - Push

    /// Ships the outbox in batches until it is empty, after pulling the account's App Store data when the client has
    /// an ``accountVerifier``. Sync is Pro: the resolver is asked next. On the free plan only
    /// the entitlement rows go out (the mirror must see a downgrade: `pro revoke` after a sync), as far as the server
    /// can be reached, then the push is refused; with none waiting it is refused before any connection. Recordings keep filling the outbox, so a
    /// later upgrade ships everything.
    ///
    /// Each batch is one PostgreSQL transaction; its outbox rows are acknowledged in SQLite only after it commits.
    /// A failure mid-batch leaves the server without any of the batch and the outbox as it was; the next push
    /// sends it again, and the idempotent upserts absorb what an earlier try already committed.
    ///
    /// - Parameters:
    ///   - store: The local database.
    ///   - context: The configuration's bypass flag and the free plan, as every access decision takes them.
    ///   - now: The clock for the access decision.
    ///   - checkWhenEmpty: With nothing waiting, still connect, migrate and check the server (`griptrack sync`:
    ///     a first setup with a wrong database or host must fail, not print "Sent 0 rows"). griptrackd leaves it
    ///     off, so an idle Pi opens no connection.
    ///   - progress: Called after each committed batch.
    /// - Returns: What was shipped.
    /// - Throws: ``SyncError``; the failure is also kept in the store for `griptrack sync status`.
    @discardableResult
    package func push(
        from store: RecordingStore, context: AccessContext, now: Date = Date(), checkWhenEmpty: Bool = false,
        progress: (PushProgress) -> Void = { _ in }
    ) async throws(SyncError) -> PushSummary {
        let started = ContinuousClock.now
        do throws(SyncError) {
            let summary = try await pushUnrecorded(
                from: store, context: context, now: now, checkWhenEmpty: checkWhenEmpty, progress: progress)
            do throws(GripStoreError) {
                if summary.rows == 0 { try store.recordSyncSuccess() }
            } catch {
                throw SyncError.store(error)
            }
            return summary
        } catch {
            // A deadline's message names its own step; when the account pull before it waited too, the push as a whole
            // waited longer, and says so.
            let error = error.waitedInAll(ContinuousClock.now - started)
            // A push stopped from outside did not fail; the next one carries on.
            if error != .interrupted { try? store.recordSyncFailure(error.description) }
            throw error
        }
    }

    /// One connection for the whole push (``PushSession``), closed however the push ends.
    private func pushUnrecorded(
        from store: RecordingStore, context: AccessContext, now: Date, checkWhenEmpty: Bool,
        progress: (PushProgress) -> Void
    ) async throws(SyncError) -> PushSummary {
        let session = PushSession(client: self)
        do {
            let summary = try await pushUnrecorded(
                from: store, context: context, now: now, checkWhenEmpty: checkWhenEmpty, progress: progress,
                in: session)
            await session.close()
            return summary
        } catch {
            await session.close()
            throw error
        }
    }

    private func pushUnrecorded(
        from store: RecordingStore, context: AccessContext, now: Date, checkWhenEmpty: Bool,
        progress: (PushProgress) -> Void, in session: PushSession
    ) async throws(SyncError) -> PushSummary {
        // The account's App Store data first: a purchase on the phone or a refund reaches this device before the
        // gate decides what this push may send.
        // Best effort too: a pull that cannot reach the server leaves the device on what it knew, and the push
        // below (or the refusal) says what happened.
        do throws(SyncError) {
            if let accountVerifier {
                try await pullAccount(into: store, verifier: accountVerifier, context: context, now: now, in: session)
            }
            if let operatorKey {
                try await pullGrants(into: store, key: operatorKey, now: now, in: session)
            }
        } catch .interrupted {
            throw .interrupted
        } catch {
            logger.info("Account data not pulled", metadata: ["reason": "\(error)"])
        }
        if let refusal = try SyncGate.refusal(store: store, context: context, now: now) {
            // Best effort: the refusal is what this push has to say. Rows that did not go stay in the outbox.
            do throws(SyncError) {
                try await pushEntitlementsOnly(from: store, progress: progress, in: session)
            } catch .interrupted {
                throw .interrupted
            } catch {
                logger.info("Entitlement rows not sent", metadata: ["reason": "\(error)"])
            }
            throw refusal
        }
        // Nothing waiting: no connection, so an idle Pi neither wakes the server nor its own network every interval.
        let empty: Bool
        do throws(GripStoreError) {
            empty = try store.pendingOutbox(limit: 1).isEmpty
        } catch {
            throw .store(error)
        }
        if empty {
            if checkWhenEmpty { _ = try await session.open() }
            return PushSummary()
        }
        let started = ContinuousClock.now
        return try await session.run { connection throws(SyncError) in
            var summary = PushSummary()
            // Rows of recordings another account holds stay in the outbox; later batches start after them.
            var after: Int64 = 0
            var conflicts: [ServerWrites.Conflict] = []
            while true {
                let entries: [OutboxEntry]
                do throws(GripStoreError) {
                    entries = try store.pendingOutbox(after: after, limit: settings.batchSize)
                } catch {
                    throw .store(error)
                }
                guard !entries.isEmpty else { break }
                let plan = try PushPlan(entries, store: store)
                let refused = try await apply(plan, on: connection)
                // After the commit, never before: a crash here re-sends the batch, which the upserts absorb.
                for conflict in refused where !conflicts.contains(where: { $0.uuid == conflict.uuid }) {
                    conflicts.append(conflict)
                }
                // Every refused recording so far, not only this batch's: an acknowledgement removes every row up
                // to the batch's last id, earlier batches' kept rows included.
                do throws(GripStoreError) {
                    try store.acknowledgeOutbox(upTo: plan.lastID, keeping: Set(conflicts.map(\.uuid)))
                } catch {
                    throw .store(error)
                }
                after = plan.lastID
                Self.count(plan, into: &summary, started: started, store: store, progress: progress)
            }
            if !conflicts.isEmpty {
                throw .notOwned(
                    recordings: conflicts.map { "#\($0.id.rawValue) (\($0.uuid.uuidString.lowercased().prefix(8)))" },
                    account: settings.account)
            }
            return summary
        }
    }

    /// Adds a committed batch to the summary and tells `progress` what is left.
    private static func count(
        _ plan: PushPlan, into summary: inout PushSummary, started: ContinuousClock.Instant, store: RecordingStore,
        progress: (PushProgress) -> Void
    ) {
        let before = summary
        summary.add(plan)
        summary.elapsed = ContinuousClock.now - started
        progress(
            PushProgress(
                summary: summary, batch: summary.since(before), pendingAfter: (try? store.syncStatus().pendingRows) ?? 0))
    }

    /// Ships the entitlement rows alone (a device on the free plan), each batch acknowledged after its commit; with
    /// none waiting, opens no connection.
    private func pushEntitlementsOnly(
        from store: RecordingStore, progress: (PushProgress) -> Void, in session: PushSession
    ) async throws(SyncError) {
        let batchSize = settings.batchSize
        func pending(after: Int64) throws(SyncError) -> [OutboxEntry] {
            do throws(GripStoreError) {
                return try store.pendingOutbox(after: after, limit: batchSize, only: .entitlement)
            } catch {
                throw .store(error)
            }
        }
        guard !(try pending(after: 0)).isEmpty else { return }
        let started = ContinuousClock.now
        try await session.run { connection throws(SyncError) in
            var summary = PushSummary()
            var after: Int64 = 0
            while true {
                let entries = try pending(after: after)
                guard !entries.isEmpty else { break }
                let plan = try PushPlan(entries, store: store)
                try await apply(plan, on: connection)
                do throws(GripStoreError) {
                    try store.acknowledgeEntitlementOutbox(upTo: plan.lastID)
                } catch {
                    throw .store(error)
                }
                after = plan.lastID
                Self.count(plan, into: &summary, started: started, store: store, progress: progress)
            }
        }
    }

    /// Applies one batch in one transaction, within ``SyncTimeouts/batch``: past it the connection is closed (which
    /// fails the transaction: nothing of the batch is kept) and the push fails.
    ///
    /// - Returns: The batch's recordings that another account holds on the server (left unsent).
    @discardableResult
    private func apply(_ plan: PushPlan, on connection: PostgresConnection) async throws(SyncError) -> [ServerWrites.Conflict] {
        let settings = settings
        let logger = logger
        return try await wait(.batch(rows: plan.rows), on: connection, within: settings.timeouts.batch) { connection in
            try await connection.withTransaction(logger: logger) { connection in
                try await ServerWrites.apply(
                    plan, account: settings.account, deviceName: settings.deviceName, on: connection, logger: logger)
            }
        }
    }

    // MARK: - Schema

    /// Connects, applies missing server migrations and checks the schema, without sending anything
    /// (`griptrack sync --check`, and a first `sync` with nothing waiting).
    ///
    /// - Returns: The versions this call applied (empty when the schema was current).
    /// - Throws: ``SyncError``.
    @discardableResult
    package func migrate() async throws(SyncError) -> [Int] {
        try await withConnection(migrating: false) { connection throws(SyncError) in
            try await prepare(connection)
        }
    }

    // MARK: - Connection

    /// Opens a connection, prepares it (session deadlines, migrations, the schema check) unless told not to, runs
    /// `body`, and closes the connection.
    func withConnection<T>(
        migrating: Bool = true, _ body: (PostgresConnection) async throws(SyncError) -> T
    ) async throws(SyncError) -> T {
        let connection = try await connect()
        do {
            if migrating { try await prepare(connection) }
            let result = try await body(connection)
            try? await connection.close()
            return result
        } catch {
            try? await connection.close()
            throw error
        }
    }

    /// The session's server-side deadlines, the migrations and the schema check, within ``SyncTimeouts/migration``.
    ///
    /// - Returns: The migrations applied.
    @discardableResult
    func prepare(_ connection: PostgresConnection) async throws(SyncError) -> [Int] {
        let timeouts = settings.timeouts
        let logger = logger
        return try await wait(.migration, on: connection, within: timeouts.migration) { connection in
            // The server ends a statement that waits too long for a lock (another session holding griptrack_schema)
            // or runs too long, and says so, before the client's own deadline closes the connection.
            try await connection.query(
                PostgresQuery(unsafeSQL: "SET lock_timeout = \(timeouts.lock.milliseconds)"), logger: logger)
            try await connection.query(
                PostgresQuery(unsafeSQL: "SET statement_timeout = \(max(timeouts.batch, timeouts.read).milliseconds)"),
                logger: logger)
            let applied = try await ServerSchema.migrate(connection, logger: logger)
            let differences = try await SchemaCheck.read(connection, logger: logger).differences(from: .expected)
            guard differences.isEmpty else { throw SyncError.serverSchemaChanged(differences: differences) }
            return applied
        }
    }

    /// One wait on the server, within `limit` (``Deadline``): past it, or when the caller is cancelled, the
    /// connection is closed and the wait fails with what it was waiting for.
    ///
    /// - Throws: ``SyncError/timedOut(target:waitingFor:limit:detail:)`` (also when the server itself cancelled a
    ///   statement for its lock or statement timeout), ``SyncError/interrupted``, or the mapped failure.
    func wait<T: Sendable>(
        _ what: SyncError.Wait, on connection: PostgresConnection, within limit: Duration,
        _ work: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws(SyncError) -> T {
        let target = settings.endpoint.displayName
        do {
            return try await Deadline.run(
                within: limit, abandon: { _ = connection.close() as EventLoopFuture<Void> },
                peerClosed: { closed in connection.closeFuture.whenComplete { _ in closed() } }
            ) {
                try await work(connection)
            }
        } catch is Deadline.Expired {
            throw .timedOut(target: target, waitingFor: what, limit: limit, detail: nil)
        } catch is Deadline.PeerClosed {
            throw .server(
                operation: what.operation,
                detail: "the server closed the connection (it stopped or was restarted) before it answered")
        } catch is CancellationError {
            throw .interrupted
        } catch {
            switch SyncError.sqlState(error) {
            case "55P03":  // lock_not_available: lock_timeout
                throw .timedOut(
                    target: target, waitingFor: what, limit: settings.timeouts.lock,
                    detail: "another session holds a lock griptrack needs; " + SyncError.detail(error))
            case "57014":  // query_canceled: statement_timeout
                throw .timedOut(target: target, waitingFor: what, limit: limit, detail: SyncError.detail(error))
            default:
                throw SyncError(error, operation: what.operation)
            }
        }
    }
}

extension SyncError.Wait {
    /// What sync was doing, as the rest of a sentence ("PostgreSQL failed to …").
    var operation: String {
        switch self {
        case .connect: "connect"
        case .migration: "migrate the sync schema"
        case .batch(let rows): "apply a batch of \(rows) outbox rows"
        case .read(let what), .write(let what): what
        }
    }
}

/// What a push shipped so far.
package struct PushSummary: Sendable, Equatable {
    /// Outbox rows acknowledged.
    package var rows = 0
    /// Batches (PostgreSQL transactions) committed.
    package var batches = 0
    /// Recordings upserted (a recording in two batches counts twice).
    package var recordings = 0
    /// Sample chunks and samples sent.
    package var chunks = 0
    package var samples = 0
    /// Chunk bytes sent.
    package var bytes = 0
    /// Tombstones and subscription events sent.
    package var tombstones = 0
    package var subscriptionEvents = 0
    /// Wall time of the push.
    package var elapsed: Duration = .zero

    /// An empty summary.
    package init() {}

    /// What was shipped since `earlier` (a summary of the same push).
    func since(_ earlier: PushSummary) -> PushSummary {
        var batch = PushSummary()
        batch.rows = rows - earlier.rows
        batch.batches = batches - earlier.batches
        batch.recordings = recordings - earlier.recordings
        batch.chunks = chunks - earlier.chunks
        batch.samples = samples - earlier.samples
        batch.bytes = bytes - earlier.bytes
        batch.tombstones = tombstones - earlier.tombstones
        batch.subscriptionEvents = subscriptionEvents - earlier.subscriptionEvents
        batch.elapsed = elapsed - earlier.elapsed
        return batch
    }

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
package struct PushProgress: Sendable, Equatable {
    /// Everything shipped so far in this push.
    package var summary: PushSummary
    /// What this batch shipped.
    package var batch: PushSummary
    /// Outbox rows still waiting.
    package var pendingAfter: Int
}
