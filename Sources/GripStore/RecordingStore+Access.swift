import Foundation
import GRDB
import GripEntitlements

/// Access as `griptrack pro status` shows it: the resolver's answer and what the free plan stores.
public struct AccessStatus: Sendable, Equatable {
    /// The answer of ``GripEntitlements/resolve(_:now:)``.
    public var access: Access
    /// Recordings stored now (any state).
    public var storedRecordings: Int
    /// The free plan's limit.
    public var freeLimit: Int
    /// The free plan's storage line, e.g. `"Free: 4 of 5 recordings stored"`; `nil` for Pro.
    public var freeStorage: String?
    /// The free plan's warning at one slot left or none (``GripEntitlements/FreeTierPolicy/warning(storedCount:access:)``).
    public var freeWarning: String?
}

/// What importing one piece of verified App Store data did.
public struct SignedDataImport: Sendable, Equatable {
    /// One event per transaction, renewal info and notification, in order (applied, replay ignored, …).
    public var events: [ApplyEvent]
    /// Access before the import.
    public var before: Access
    /// Access after the import.
    public var after: Access
}

/// The store ↔ `GripEntitlements` bridge: the one place that turns stored facts into an `EntitlementState`, resolves
/// it, and applies the free plan when a recording starts. The daemon and the CLI both go through it.
extension RecordingStore {
    // MARK: - Reading access

    /// The entitlement state the resolver reads, rebuilt from the stored facts in one snapshot.
    ///
    /// - Parameter bypass: The configuration's early-access flag.
    /// - Returns: The state (manual override, verified subscriptions, processed notifications, robust-now floor).
    /// - Throws: An SQLite error, or ``GripStoreError/sqlite(operation:code:extendedCode:message:)`` for a stored
    ///   payload that no longer decodes.
    public func loadEntitlementState(bypass: Bool) throws(GripStoreError) -> EntitlementState {
        try read("read the entitlement state") { db in try Self.fetchEntitlementState(db, bypass: bypass) }
    }

    /// Resolves access now, with the free plan's storage line.
    ///
    /// - Parameters:
    ///   - context: Bypass flag and free plan.
    ///   - now: The system clock.
    /// - Returns: The resolver's answer and the stored count.
    /// - Throws: An SQLite error.
    public func accessStatus(_ context: AccessContext, now: Date) throws(GripStoreError) -> AccessStatus {
        try read("read the entitlement state") { db in
            let access = resolve(try Self.fetchEntitlementState(db, bypass: context.bypass), now: now)
            let stored = try RecordingRecord.fetchCount(db)
            return AccessStatus(
                access: access, storedRecordings: stored, freeLimit: context.policy.storedRecordingLimit,
                freeStorage: access.isPro ? nil : context.policy.reason(storedCount: stored),
                freeWarning: context.policy.warning(storedCount: stored, access: access))
        }
    }

    // MARK: - Admission

    /// Starts a recording if the free plan allows it: the stored count, the entitlement state and the new row are
    /// read and written in one IMMEDIATE transaction, and the decision is
    /// `FreeTierPolicy.canStartRecording(storedCount:access:)` with `access = resolve(state, now)`.
    ///
    /// - Parameters:
    ///   - draft: What is known at the start.
    ///   - context: Bypass flag and free plan.
    ///   - now: The system clock.
    /// - Returns: The new recording, in state `recording`.
    /// - Throws: ``GripStoreError/refused(reason:storedRecordings:)`` with the policy's text, or an SQLite error.
    public func beginRecording(
        _ draft: RecordingDraft, context: AccessContext, now: Date
    ) throws(GripStoreError) -> RecordingID {
        try beginRecording(draft, owner: owner) { db, count in
            try Self.admission(db, count: count, context: context, now: now)
        }
    }

    /// The one admission decision, inside the transaction that reserves the slot.
    static func admission(
        _ db: Database, count: StoredCount, context: AccessContext, now: Date
    ) throws -> AdmissionDecision {
        let access = resolve(try fetchEntitlementState(db, bypass: context.bypass), now: now)
        switch context.policy.canStartRecording(storedCount: count.recordings, access: access) {
        case .allowed: return .admit
        case .refused(let reason): return .refuse(reason: reason)
        }
    }

    /// The dates a capture or an import may give a recording: 2000-01-01 up to (not including) 2100-01-01, UTC.
    public static let plausibleDates = Date(timeIntervalSince1970: 946_684_800)..<Date(timeIntervalSince1970: 4_102_444_800)

    /// Admits only dates inside ``plausibleDates``: dates from a capture or an import are input, and one far out of
    /// range once made every reader fail.
    static func requirePlausibleDates(start: Date, end: Date) throws(GripStoreError) {
        for (date, what) in [(start, "start"), (end, "end")] where !plausibleDates.contains(date) {
            throw GripStoreError.implausibleDate(date, what: what)
        }
    }

    // MARK: - Importing signed data

    /// Applies verified App Store data to the stored state in one IMMEDIATE transaction: rebuilds the state,
    /// runs `EntitlementState.applying(verified:now:)` (replay protection, notification dedupe, "too old to
    /// grant"), stores every piece it applied with its JWS, and writes an audit line when the tier changes.
    ///
    /// - Parameters:
    ///   - verified: Data an `AppStoreVerifier` returned.
    ///   - jws: The compact JWS it was verified from.
    ///   - context: Bypass flag (for the before/after access).
    ///   - actor: Who imported it, for the audit log.
    ///   - now: The system clock.
    /// - Returns: The apply events and the access before and after.
    /// - Throws: An SQLite error.
    public func importVerified(
        _ verified: VerifiedSignedData, jws: String, context: AccessContext, actor: String, now: Date
    ) throws(GripStoreError) -> SignedDataImport {
        try writeImmediate("import App Store signed data") { db in
            let state = try Self.fetchEntitlementState(db, bypass: context.bypass)
            let before = resolve(state, now: now)
            let result = state.applying(verified: verified, now: now)
            var applied = result.events.filter { $0.disposition == .applied }.map(\.kind)
            func take(_ kind: SignedDataKind) -> Bool {
                guard let index = applied.firstIndex(of: kind) else { return false }
                applied.remove(at: index)
                return true
            }
            switch verified {
            case .transaction(let transaction):
                if take(.transaction) { try Self.save(transaction, jws: jws, db, now: now) }
            case .renewalInfo(let renewal):
                if take(.renewalInfo) { try Self.save(renewal, jws: jws, db, now: now) }
            case .notification(let notification):
                if take(.notification) {
                    let payload = notification.notification.payload
                    try ProcessedNotificationRecord(
                        ProcessedNotification(
                            notificationUUID: payload.notificationUUID ?? "signedDate-\(millis(notification.notification.signedDate) ?? 0)",
                            notificationType: payload.notificationType ?? "UNKNOWN", subtype: payload.subtype,
                            signedDateMillis: millis(notification.notification.signedDate), processedAt: now)
                    ).insert(db)
                }
                if let transaction = notification.transaction, let nested = notification.notification.payload.data?.signedTransactionInfo,
                    take(.transaction)
                {
                    try Self.save(transaction, jws: nested, db, now: now)
                }
                if let renewal = notification.renewalInfo, let nested = notification.notification.payload.data?.signedRenewalInfo,
                    take(.renewalInfo)
                {
                    try Self.save(renewal, jws: nested, db, now: now)
                }
            }
            let after = resolve(try Self.fetchEntitlementState(db, bypass: context.bypass), now: now)
            if before.isPro != after.isPro {
                var audit = ProAuditRecord(
                    at: now, action: after.isPro ? .grant : .revoke, source: "appStore", actor: actor,
                    note: after.reason, expiresAt: after.expires)
                try audit.insert(db)
            }
            if result.events.contains(where: { $0.disposition == .applied }) {
                try OutboxChange.entitlement(event: "App Store data imported").record(db, at: now)
            }
            return SignedDataImport(events: result.events, before: before, after: after)
        }
    }

    private static func save(_ verified: Verified<TransactionPayload>, jws: String, _ db: Database, now: Date) throws {
        let payload = verified.payload
        guard let otid = payload.originalTransactionId, let signed = millis(payload.signedDate) else { return }
        _ = try acceptSignedDate(db, kind: .transaction, otid, signed)
        try AppStoreTransactionRecord(
            StoredTransaction(
                transactionId: payload.transactionId ?? otid, originalTransactionId: otid,
                productId: payload.productId, environment: payload.environment?.rawValue, signedDateMillis: signed,
                purchaseDateMillis: millis(payload.purchaseDate), expiresDateMillis: millis(payload.expiresDate),
                revocationDateMillis: millis(payload.revocationDate), payloadJSON: verified.payloadJSON, jws: jws,
                verifiedAt: now)
        ).upsert(db)
    }

    private static func save(_ verified: Verified<RenewalInfoPayload>, jws: String, _ db: Database, now: Date) throws {
        let payload = verified.payload
        guard let otid = payload.originalTransactionId, let signed = millis(payload.signedDate) else { return }
        _ = try acceptSignedDate(db, kind: .renewalInfo, otid, signed)
        try AppStoreRenewalInfoRecord(
            StoredRenewalInfo(
                originalTransactionId: otid, environment: payload.environment?.rawValue, signedDateMillis: signed,
                renewalDateMillis: millis(payload.renewalDate),
                gracePeriodExpiresDateMillis: millis(payload.gracePeriodExpiresDate),
                payloadJSON: verified.payloadJSON, jws: jws, verifiedAt: now)
        ).upsert(db)
    }

    // MARK: - Manual override

    /// Grants Pro by hand (replacing any earlier grant) and writes the audit line.
    ///
    /// - Parameters:
    ///   - note: Why (shown in the reason), e.g. "PT partner".
    ///   - expires: When it ends; `nil` for never.
    ///   - actor: Who granted it.
    ///   - now: The system clock.
    /// - Throws: An SQLite error.
    public func grantPro(note: String?, expires: Date?, by actor: String, now: Date) throws(GripStoreError) {
        try setManualOverride(ManualGrant(note: note ?? "", expiresAt: expires, grantedAt: now, grantedBy: actor))
    }

    // MARK: - State from rows

    /// Rebuilds the resolver's state from the stored facts on `db`.
    static func fetchEntitlementState(_ db: Database, bypass: Bool) throws -> EntitlementState {
        let override = try ManualOverrideRecord.fetchOne(db, key: 1).map { record in
            ManualOverride(
                note: record.note.isEmpty ? nil : record.note, expires: record.expiresAt, grantedAt: record.grantedAt)
        }
        let transactions = try AppStoreTransactionRecord.order(Column("signedDateMillis")).fetchAll(db)
        let renewals = try AppStoreRenewalInfoRecord.order(Column("signedDateMillis")).fetchAll(db)
        let notifications = try ProcessedNotificationRecord.fetchAll(db)
        let marks = try SignedDateHighWaterRecord.fetchAll(db)
        let newest = (marks.map(\.newestSignedDateMillis) + notifications.compactMap(\.signedDateMillis)).max()
        let verifiedAt = (transactions.map(\.verifiedAt) + renewals.map(\.verifiedAt) + notifications.map(\.processedAt)).max()
        do {
            return try EntitlementState(
                restoringBypass: bypass, manualOverride: override, transactionPayloads: transactions.map(\.payloadJSON),
                renewalInfoPayloads: renewals.map(\.payloadJSON),
                processedNotificationUUIDs: Set(notifications.map(\.notificationUUID)),
                newestSignedDate: newest.map { Date(timeIntervalSince1970: $0 / 1000) },
                lastSuccessfulVerification: verifiedAt)
        } catch {
            throw GripStoreError.sqlite(
                operation: "read the entitlement state", code: 11, extendedCode: 11,
                message: "a stored App Store payload does not decode: \(error)")
        }
    }
}

private func millis(_ date: Date?) -> Double? { date.map { $0.timeIntervalSince1970 * 1000 } }
