import Foundation
import Logging
import PostgresNIO

/// griptrack-hub's PostgreSQL side: stores verified App Store notifications, once each, linked to the account
/// whose UUID is their `appAccountToken` (docs/account.md, "The hub").
///
/// Each call opens one connection (with the sync client's deadlines, TLS rules, migrations and schema check) and
/// closes it: the App Store sends a handful of notifications per subscriber per month, and a connection per
/// notification keeps the hub free of a pool to watch.
package struct NotificationArchive: Sendable {
    /// What storing a notification did.
    package enum Outcome: Sendable, Equatable {
        /// Committed; `account` is the account its token named, `nil` when no account has that UUID (kept, so an
        /// account created later still finds it). `referral` is what it did to that account's referral.
        case stored(account: String?, referral: ReferralCompletion?)
        /// A notification with this `notificationUUID` was stored before; nothing changed.
        case duplicate
    }

    private let client: SyncClient

    /// Creates an archive.
    ///
    /// - Parameters:
    ///   - endpoint: The server, as an operator role.
    ///   - timeouts: Deadlines for connecting, migrating and each write.
    ///   - logger: Connection events (info and below).
    package init(endpoint: SyncEndpoint, timeouts: SyncTimeouts = .standard, logger: Logger) {
        // The hub is neither an account nor a device: the settings carry only the endpoint and deadlines.
        var settings = SyncSettings(endpoint: endpoint, account: "", deviceName: "griptrack-hub")
        settings.timeouts = timeouts
        client = SyncClient(settings: settings, logger: logger)
    }

    /// Stores a verified notification in one transaction; returns only after the commit. An offer code redeemed
    /// (`offerType` 3) by an account that was referred completes its referral in the same transaction
    /// (``ReferralCompletion``).
    ///
    /// - Parameter notification: What the hub verified.
    /// - Returns: Stored (with its account) or a duplicate.
    /// - Throws: ``SyncError`` when the server cannot be reached or the write fails (the App Store retries).
    package func store(_ notification: ArchivedNotification) async throws(SyncError) -> Outcome {
        let limit = client.settings.timeouts.batch
        let logger = client.logger
        // The schema was migrated and checked when the hub started (``check()``) and is by every /healthz: a
        // notification's connection goes straight to its insert.
        return try await client.withConnection(migrating: false) { connection throws(SyncError) in
            try await client.wait(.write("store the notification"), on: connection, within: limit) { connection in
                try await connection.withTransaction(logger: logger) { connection in
                    let n = notification
                    let rows = try await connection.query(
                        """
                        INSERT INTO appstore_notifications
                            (notification_uuid, account, app_account_token, notification_type, subtype,
                             original_transaction_id, signed_at, expires_at, signed_payload, signed_transaction,
                             signed_renewal_info)
                        VALUES (\(n.notificationUUID),
                                (SELECT account FROM accounts WHERE account_uuid = \(n.appAccountToken)),
                                \(n.appAccountToken), \(n.type), \(n.subtype), \(n.originalTransactionId), \(n.signedAt),
                                \(n.expiresAt), \(n.signedPayload), \(n.signedTransaction), \(n.signedRenewalInfo))
                        ON CONFLICT (notification_uuid) DO NOTHING
                        RETURNING account
                        """, logger: logger)
                    var inserted = false
                    var account: String?
                    for try await value in rows.checked(columns: 1).decode(String?.self) {
                        inserted = true
                        account = value
                    }
                    guard inserted else { return Outcome.duplicate }
                    guard let account, n.offerType == 3 else { return Outcome.stored(account: account, referral: nil) }
                    return Outcome.stored(
                        account: account,
                        referral: try await ReferralCompletion.complete(
                            referred: account, notification: n.notificationUUID, on: connection, logger: logger))
                }
            }
        }
    }

    /// Connects, migrates and checks the schema (griptrack-hub's `/healthz` and its start).
    ///
    /// - Throws: ``SyncError``.
    package func check() async throws(SyncError) {
        try await client.migrate()
    }
}
