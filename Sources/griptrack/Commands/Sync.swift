import ArgumentParser
import Foundation
import GripStore
import GripSync

extension Griptrack {
    /// `griptrack sync`: push the outbox to PostgreSQL; `griptrack sync status`: what is waiting.
    struct Sync: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "sync",
            abstract: "Sync recordings to the account's PostgreSQL database (Pro).",
            discussion: """
                Pushes every change waiting in the database's outbox to the server of [sync] in griptrack.toml, \
                in batches; a batch counts as sent only once the server has committed it. Sync is Pro: on the \
                free plan it exits 3 with the reason, and the outbox keeps collecting changes. See docs/sync.md.
                """,
            subcommands: [Push.self, Status.self],
            defaultSubcommand: Push.self)
    }
}

extension Griptrack.Sync {
    /// `griptrack sync [push]`.
    struct Push: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "push", abstract: "Push the outbox now (the default).")

        @OptionGroup var common: CommonOptions

        @Flag(help: "Connect, migrate and check the server's schema without sending anything.")
        var check = false

        func run() async throws {
            let session = try common.session()
            let client = try SyncSetup.client(session.config)
            let json = common.json
            if check {
                try await Griptrack.Sync.check(client, session: session, json: json)
                return
            }
            let before = try storeCall { () throws(GripStoreError) in try session.store.syncStatus() }
            if !json {
                print("Syncing \(before.pendingRows) outbox rows to \(client.settings.endpoint.displayName) "
                    + "as \(client.settings.deviceName) (account \(client.settings.account))…")
            }
            let marker = SyncPushMarker(databasePath: common.databasePath)
            marker.begin()
            defer { marker.end() }
            let summary: PushSummary
            do {
                summary = try await client.push(
                    from: session.store, context: session.context, checkWhenEmpty: true
                ) { progress in
                    guard !json else { return }
                    print("  batch \(progress.summary.batches): \(progress.batch.rows) rows sent, "
                        + "\(progress.pendingAfter) waiting")
                }
            } catch {
                throw SyncSetup.exit(error)
            }
            if json {
                try printJSON(SyncPushJSON(summary, client: client))
                return
            }
            let seconds = Double(summary.elapsed.components.seconds)
                + Double(summary.elapsed.components.attoseconds) / 1e18
            print("Sent \(summary.rows) rows in \(summary.batches) batches: \(summary.recordings) recording updates, "
                + "\(summary.chunks) chunks (\(summary.samples) samples, \(summary.bytes) bytes), "
                + "\(summary.tombstones) deletions, \(summary.subscriptionEvents) subscription events "
                + String(format: "in %.2f s.", seconds))
        }
    }

    /// `griptrack sync --check`: the Pro gate, then connect, migrate and check the schema; nothing is sent.
    fileprivate static func check(_ client: SyncClient, session: Session, json: Bool) async throws {
        try session.requirePro("`griptrack sync` (sync)")
        let applied: [Int]
        do {
            applied = try await client.migrate()
        } catch {
            throw SyncSetup.exit(error)
        }
        if json {
            try printJSON(SyncCheckJSON(
                server: client.settings.endpoint.displayName, account: client.settings.account,
                migrated: applied, ok: true))
            return
        }
        print("PostgreSQL at \(client.settings.endpoint.displayName) answers and its schema is griptrack's"
            + (applied.isEmpty ? "" : " (migrated to version \(applied.max() ?? 0) now)") + "; nothing was sent.")
    }
}

extension Griptrack.Sync {
    /// `griptrack sync status`.
    struct Status: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "status",
            abstract: "Show the outbox: rows waiting, last success, last error.")

        @OptionGroup var common: CommonOptions

        func run() throws {
            let store = try common.openStore()
            let status = try storeCall { () throws(GripStoreError) in try store.syncStatus() }
            let pushingSince = SyncPushMarker(databasePath: common.databasePath).since()
            if common.json {
                var json = SyncStatusJSON(status)
                json.pushingSince = pushingSince
                try printJSON(json)
                return
            }
            if let pushingSince { print("Pushing: since \(Format.millisecond(pushingSince))") }
            print("Waiting: \(status.pendingRows) outbox rows"
                + (status.oldestPendingAt.map { " (oldest change \(Format.second($0)))" } ?? ""))
            print("Last success: " + (status.lastSuccessAt.map(Format.millisecond) ?? "never"))
            if let at = status.lastErrorAt {
                // An error that a later push got past is history, and is labelled so.
                let resolved = status.lastSuccessAt.map { $0 > at } ?? false
                print("Last error: \(Format.millisecond(at))"
                    + (resolved ? " (before the last success, since resolved)" : "") + ": \(status.lastError ?? "")")
            } else {
                print("Last error: none")
            }
            print("Sent so far: \(status.rowsSent) rows")
        }
    }
}

/// `griptrack sync --json`.
struct SyncPushJSON: Encodable {
    var rows, batches, recordings, chunks, samples, bytes, tombstones, subscriptionEvents: Int
    var seconds: Double
    var server: String
    var account: String
    var deviceName: String

    init(_ summary: PushSummary, client: SyncClient) {
        rows = summary.rows
        batches = summary.batches
        recordings = summary.recordings
        chunks = summary.chunks
        samples = summary.samples
        bytes = summary.bytes
        tombstones = summary.tombstones
        subscriptionEvents = summary.subscriptionEvents
        seconds = Double(summary.elapsed.components.seconds) + Double(summary.elapsed.components.attoseconds) / 1e18
        server = client.settings.endpoint.displayName
        account = client.settings.account
        deviceName = client.settings.deviceName
    }
}

/// `griptrack sync --check --json`.
struct SyncCheckJSON: Encodable {
    var server: String
    var account: String
    var migrated: [Int]
    var ok: Bool
}

/// `griptrack sync status --json`.
struct SyncStatusJSON: Encodable {
    var pendingRows: Int
    var oldestPendingAt: Date?
    var lastSuccessAt: Date?
    var lastErrorAt: Date?
    var lastError: String?
    /// Whether a push succeeded after the last error.
    var lastErrorResolved: Bool
    /// When the push under way started (absent when none is).
    var pushingSince: Date?
    var rowsSent: Int

    init(_ status: SyncStatus) {
        pendingRows = status.pendingRows
        oldestPendingAt = status.oldestPendingAt
        lastSuccessAt = status.lastSuccessAt
        lastErrorAt = status.lastErrorAt
        lastError = status.lastError
        if let error = status.lastErrorAt, let success = status.lastSuccessAt {
            lastErrorResolved = success > error
        } else {
            lastErrorResolved = false
        }
        rowsSent = status.rowsSent
    }
}
