import ArgumentParser
import Foundation
import GripStore
import GripSync

extension Griptrack {
    /// `griptrack sync`: push the outbox to PostgreSQL; `griptrack sync status`: what is waiting.
    struct Sync: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
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
        static let configuration = CommandConfiguration(abstract: "Push the outbox now (the default).")

        @OptionGroup var common: CommonOptions

        func run() async throws {
            let session = try common.session()
            let client = try SyncSetup.client(session.config)
            let json = common.json
            let before = try storeCall { () throws(GripStoreError) in try session.store.syncStatus() }
            if !json {
                print("Syncing \(before.pendingRows) outbox rows to \(client.settings.endpoint.displayName) "
                    + "as \(client.settings.deviceName) (account \(client.settings.account))…")
            }
            let summary: PushSummary
            do {
                summary = try await client.push(from: session.store, context: session.context) { progress in
                    guard !json else { return }
                    print("  batch \(progress.summary.batches): \(progress.summary.rows) rows sent, "
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

    /// `griptrack sync status`.
    struct Status: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show the outbox: rows waiting, last success, last error.")

        @OptionGroup var common: CommonOptions

        func run() throws {
            let store = try common.openStore()
            let status = try storeCall { () throws(GripStoreError) in try store.syncStatus() }
            if common.json {
                try printJSON(SyncStatusJSON(status))
                return
            }
            print("Waiting: \(status.pendingRows) outbox rows"
                + (status.oldestPendingAt.map { " (oldest change \(Format.second($0)))" } ?? ""))
            print("Last success: " + (status.lastSuccessAt.map(Format.second) ?? "never"))
            if let at = status.lastErrorAt {
                print("Last error: \(Format.second(at)): \(status.lastError ?? "")")
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

/// `griptrack sync status --json`.
struct SyncStatusJSON: Encodable {
    var pendingRows: Int
    var oldestPendingAt: Date?
    var lastSuccessAt: Date?
    var lastErrorAt: Date?
    var lastError: String?
    var rowsSent: Int

    init(_ status: SyncStatus) {
        pendingRows = status.pendingRows
        oldestPendingAt = status.oldestPendingAt
        lastSuccessAt = status.lastSuccessAt
        lastErrorAt = status.lastErrorAt
        lastError = status.lastError
        rowsSent = status.rowsSent
    }
}
