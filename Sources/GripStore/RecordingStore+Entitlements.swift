import Foundation
import GRDB

/// Persistence of the entitlement state. The store keeps facts; whether they grant Pro is the resolver's decision.
extension RecordingStore {
    // MARK: - Manual override

    /// Sets (or replaces) the manual Pro override, and writes a `grant` line to the audit log.
    ///
    /// - Parameters:
    ///   - override: Note, expiry, time and author of the grant.
    /// - Throws: An SQLite error.
    public func setManualOverride(_ override: ManualGrant) throws(GripStoreError) {
        try writeImmediate("save the Pro override") { db in
            try ManualOverrideRecord(
                note: override.note, expiresAt: override.expiresAt, grantedAt: override.grantedAt,
                grantedBy: override.grantedBy
            ).upsert(db)
            var audit = ProAuditRecord(
                at: override.grantedAt, action: .grant, source: "override", actor: override.grantedBy,
                note: override.note, expiresAt: override.expiresAt
            )
            try audit.insert(db)
            try OutboxChange.entitlement(event: "override set").record(db, at: override.grantedAt)
        }
    }

    /// Removes the manual Pro override, and writes a `revoke` line to the audit log if there was one.
    ///
    /// - Parameters:
    ///   - actor: Who revoked it.
    ///   - note: Why, if given.
    ///   - date: When.
    /// - Returns: `false` if no override was set (nothing is written).
    /// - Throws: An SQLite error.
    @discardableResult
    public func clearManualOverride(by actor: String, note: String? = nil, at date: Date) throws(GripStoreError) -> Bool {
        try writeImmediate("remove the Pro override") { db in
            guard try ManualOverrideRecord.deleteOne(db, key: 1) else { return false }
            var audit = ProAuditRecord(
                at: date, action: .revoke, source: "override", actor: actor, note: note, expiresAt: nil
            )
            try audit.insert(db)
            try OutboxChange.entitlement(event: "override cleared").record(db, at: date)
            return true
        }
    }

    /// The manual override, if one is set (expired or not).
    ///
    /// - Returns: The override or `nil`.
    /// - Throws: An SQLite error.
    public func manualOverride() throws(GripStoreError) -> ManualGrant? {
        try read("read the Pro override") { db in try ManualOverrideRecord.fetchOne(db, key: 1)?.value }
    }

    // MARK: - Audit log

    /// Appends a line to the audit log (for grants and revokes the store does not make itself, e.g. an App Store
    /// subscription starting or ending).
    ///
    /// - Parameter entry: The line; its `id` is ignored.
    /// - Returns: The stored line with its id.
    /// - Throws: An SQLite error.
    @discardableResult
    public func appendAudit(_ entry: ProAuditEntry) throws(GripStoreError) -> ProAuditEntry {
        try writeImmediate("write the Pro audit log") { db in
            var record = ProAuditRecord(
                at: entry.at, action: entry.action, source: entry.source, actor: entry.actor, note: entry.note,
                expiresAt: entry.expiresAt
            )
            try record.insert(db)
            return record.value
        }
    }

    /// The audit log, newest first.
    ///
    /// - Parameter limit: How many lines; `nil` for all.
    /// - Returns: The lines.
    /// - Throws: An SQLite error.
    public func auditLog(limit: Int? = nil) throws(GripStoreError) -> [ProAuditEntry] {
        try read("read the Pro audit log") { db in
            try ProAuditRecord.order(Column("id").desc).limit(limit.map { max(0, $0) } ?? -1)
                .fetchAll(db).map(\.value)
        }
    }

    // MARK: - App Store signed data

    /// Stores a verified transaction unless it is a replay: its `signedDate` must be newer than every transaction
    /// accepted before for the same `originalTransactionId`. Check and write are one transaction.
    ///
    /// - Parameter transaction: A transaction the resolver has verified. A newer one with the same
    ///   `transactionId` (e.g. now revoked) replaces the stored one.
    /// - Returns: ``SignedDataOutcome/stored`` or ``SignedDataOutcome/ignoredAsReplay(newestSignedDateMillis:)``.
    /// - Throws: An SQLite error.
    public func storeVerifiedTransaction(_ transaction: StoredTransaction) throws(GripStoreError) -> SignedDataOutcome {
        try writeImmediate("save an App Store transaction") { db in
            if let newest = try Self.acceptSignedDate(
                db, kind: .transaction, transaction.originalTransactionId, transaction.signedDateMillis)
            {
                return .ignoredAsReplay(newestSignedDateMillis: newest)
            }
            try AppStoreTransactionRecord(transaction).upsert(db)
            try OutboxChange.entitlement(event: "transaction stored").record(db)
            return .stored
        }
    }

    /// Stores verified renewal info unless it is a replay: its `signedDate` must be newer than every renewal info
    /// accepted before for the same `originalTransactionId`. It replaces the stored one.
    ///
    /// - Parameter renewal: Renewal info the resolver has verified.
    /// - Returns: ``SignedDataOutcome/stored`` or ``SignedDataOutcome/ignoredAsReplay(newestSignedDateMillis:)``.
    /// - Throws: An SQLite error.
    public func storeVerifiedRenewalInfo(_ renewal: StoredRenewalInfo) throws(GripStoreError) -> SignedDataOutcome {
        try writeImmediate("save App Store renewal info") { db in
            if let newest = try Self.acceptSignedDate(
                db, kind: .renewalInfo, renewal.originalTransactionId, renewal.signedDateMillis)
            {
                return .ignoredAsReplay(newestSignedDateMillis: newest)
            }
            try AppStoreRenewalInfoRecord(renewal).upsert(db)
            try OutboxChange.entitlement(event: "renewal stored").record(db)
            return .stored
        }
    }

    /// Raises the high-water mark, or returns the current one if `signedDate` does not exceed it.
    static func acceptSignedDate(
        _ db: Database, kind: SignedDateHighWaterKind, _ originalTransactionId: String, _ signedDateMillis: Double
    ) throws -> Double? {
        let key: [String: any DatabaseValueConvertible] = [
            "kind": kind.rawValue, "originalTransactionId": originalTransactionId,
        ]
        if let mark = try SignedDateHighWaterRecord.fetchOne(db, key: key),
            !(signedDateMillis > mark.newestSignedDateMillis)
        {
            return mark.newestSignedDateMillis
        }
        // `save`, not `upsert`: GRDB's upsert reads back the rowid, which a WITHOUT ROWID table lacks.
        try SignedDateHighWaterRecord(
            kind: kind, originalTransactionId: originalTransactionId, newestSignedDateMillis: signedDateMillis
        ).save(db)
        return nil
    }

    /// The newest accepted `signedDate` for an original transaction.
    ///
    /// - Parameters:
    ///   - originalTransactionId: The subscription.
    ///   - kind: Transactions or renewal infos.
    /// - Returns: Milliseconds since 1970, or `nil` if none was accepted.
    /// - Throws: An SQLite error.
    public func newestSignedDateMillis(
        originalTransactionId: String, kind: SignedDateHighWaterKind
    ) throws(GripStoreError) -> Double? {
        try read("read App Store state") { db in
            try SignedDateHighWaterRecord.fetchOne(
                db, key: ["kind": kind.rawValue, "originalTransactionId": originalTransactionId]
            )?.newestSignedDateMillis
        }
    }

    // MARK: - Notifications

    /// Records that a server notification was applied, unless it already was.
    ///
    /// - Parameter notification: The notification.
    /// - Returns: `true` the first time its UUID is seen, `false` for a repeat (nothing is written).
    /// - Throws: An SQLite error.
    @discardableResult
    public func markNotificationProcessed(_ notification: ProcessedNotification) throws(GripStoreError) -> Bool {
        try writeImmediate("save an App Store notification") { db in
            guard try !ProcessedNotificationRecord.exists(db, key: notification.notificationUUID) else {
                return false
            }
            try ProcessedNotificationRecord(notification).insert(db)
            return true
        }
    }

    /// Whether a server notification was already applied.
    ///
    /// - Parameter notificationUUID: Its `notificationUUID`.
    /// - Returns: `true` if it was.
    /// - Throws: An SQLite error.
    public func isNotificationProcessed(_ notificationUUID: String) throws(GripStoreError) -> Bool {
        try read("read App Store notifications") { db in
            try ProcessedNotificationRecord.exists(db, key: notificationUUID)
        }
    }

    // MARK: - Snapshot

    /// Everything the resolver needs, read in one snapshot.
    ///
    /// - Returns: The override, transactions, renewal infos and newest `signedDate` per original transaction.
    /// - Throws: An SQLite error.
    public func entitlementState() throws(GripStoreError) -> StoredEntitlementState {
        try read("read the entitlement state") { db in
            let marks = try SignedDateHighWaterRecord.fetchAll(db)
            var newest: [String: Double] = [:]
            for mark in marks {
                newest[mark.originalTransactionId] = max(
                    newest[mark.originalTransactionId] ?? -.infinity, mark.newestSignedDateMillis)
            }
            return StoredEntitlementState(
                manualOverride: try ManualOverrideRecord.fetchOne(db, key: 1)?.value,
                transactions: try AppStoreTransactionRecord.order(Column("signedDateMillis"), Column("transactionId"))
                    .fetchAll(db).map(\.value),
                renewals: try AppStoreRenewalInfoRecord.order(Column("signedDateMillis"), Column("originalTransactionId"))
                    .fetchAll(db).map(\.value),
                newestSignedDateMillis: newest
            )
        }
    }
}
