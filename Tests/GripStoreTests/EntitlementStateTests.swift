import Foundation
import Testing

@testable import GripStore

@Suite("Entitlement state")
struct EntitlementStateTests {
    static func transaction(id: String, original: String = "2000000001", signed: Double, revoked: Double? = nil) -> StoredTransaction {
        StoredTransaction(
            transactionId: id, originalTransactionId: original, productId: "griptrack.pro.yearly", environment: "Sandbox",
            signedDateMillis: signed, purchaseDateMillis: 1_672_956_000_000, expiresDateMillis: 1_704_492_000_000.5,
            revocationDateMillis: revoked, payloadJSON: #"{"transactionId":"\#(id)"}"#, jws: "eyJ.\(id).sig",
            verifiedAt: Fixtures.reference
        )
    }

    static func renewal(original: String = "2000000001", signed: Double) -> StoredRenewalInfo {
        StoredRenewalInfo(
            originalTransactionId: original, environment: "Sandbox", signedDateMillis: signed,
            renewalDateMillis: 1_704_492_000_000, gracePeriodExpiresDateMillis: nil, payloadJSON: "{}", jws: "eyJ.r.sig",
            verifiedAt: Fixtures.reference
        )
    }

    @Test("setting and clearing the manual override writes a grant and a revoke to the audit log", arguments: StoreKind.allCases)
    func manualOverrideIsAudited(kind: StoreKind) throws {
        let store = try StoreFixture(kind).store
        #expect(try store.manualOverride() == nil)
        let grant = ManualGrant(
            note: "PT partner", expiresAt: Fixtures.date(minutes: 60 * 24 * 365), grantedAt: Fixtures.reference, grantedBy: "root")
        try store.setManualOverride(grant)
        #expect(try store.manualOverride() == grant)
        #expect(try store.clearManualOverride(by: "alice", note: "partnership ended", at: Fixtures.date(minutes: 5)))
        #expect(try store.manualOverride() == nil)
        #expect(try store.clearManualOverride(by: "alice", at: Fixtures.date(minutes: 6)) == false)

        let log = try store.auditLog()
        #expect(
            log.map { ProAuditEntry(at: $0.at, action: $0.action, source: $0.source, actor: $0.actor, note: $0.note, expiresAt: $0.expiresAt) }
                == [
                    ProAuditEntry(
                        at: Fixtures.date(minutes: 5), action: .revoke, source: "override", actor: "alice", note: "partnership ended"),
                    ProAuditEntry(
                        at: Fixtures.reference, action: .grant, source: "override", actor: "root", note: "PT partner",
                        expiresAt: grant.expiresAt),
                ])
        #expect(log.compactMap(\.id).count == 2)
        #expect(try store.auditLog(limit: 1).map(\.action) == [.revoke])
    }

    @Test("signed data not newer than the newest seen for its subscription is ignored as a replay", arguments: StoreKind.allCases)
    func replayIsIgnored(kind: StoreKind) throws {
        let store = try StoreFixture(kind).store
        #expect(try store.storeVerifiedTransaction(Self.transaction(id: "t1", signed: 1_672_956_154_000.25)) == .stored)
        // A refund arrives as newer signed data for the same transaction, and replaces it.
        let refunded = Self.transaction(id: "t1", signed: 1_672_956_155_000, revoked: 1_672_956_155_000)
        #expect(try store.storeVerifiedTransaction(refunded) == .stored)
        // Replaying the genuinely signed pre-refund transaction, or the refund itself, changes nothing.
        #expect(
            try store.storeVerifiedTransaction(Self.transaction(id: "t1", signed: 1_672_956_154_000.25))
                == .ignoredAsReplay(newestSignedDateMillis: 1_672_956_155_000))
        #expect(
            try store.storeVerifiedTransaction(refunded) == .ignoredAsReplay(newestSignedDateMillis: 1_672_956_155_000))
        // Renewal info has its own high-water mark (it is often signed at the same instant as its transaction).
        #expect(try store.storeVerifiedRenewalInfo(Self.renewal(signed: 1_672_956_155_000)) == .stored)
        #expect(
            try store.storeVerifiedRenewalInfo(Self.renewal(signed: 1_672_956_155_000))
                == .ignoredAsReplay(newestSignedDateMillis: 1_672_956_155_000))
        // Another subscription is independent.
        #expect(try store.storeVerifiedTransaction(Self.transaction(id: "u1", original: "3000000001", signed: 5)) == .stored)

        let state = try store.entitlementState()
        #expect(state.transactions == [Self.transaction(id: "u1", original: "3000000001", signed: 5), refunded])
        #expect(state.renewals == [Self.renewal(signed: 1_672_956_155_000)])
        #expect(state.newestSignedDateMillis == ["2000000001": 1_672_956_155_000, "3000000001": 5])
        #expect(state.manualOverride == nil)
        #expect(try store.newestSignedDateMillis(originalTransactionId: "2000000001", kind: .transaction) == 1_672_956_155_000)
        #expect(try store.newestSignedDateMillis(originalTransactionId: "nope", kind: .renewalInfo) == nil)
    }

    @Test("a notification is processed once", arguments: StoreKind.allCases)
    func notificationDedupe(kind: StoreKind) throws {
        let store = try StoreFixture(kind).store
        let notification = ProcessedNotification(
            notificationUUID: "002e14d5-51f5-4503-b5a8-c3a1af68eb20", notificationType: "DID_RENEW", subtype: nil,
            signedDateMillis: 1_681_314_324_000, processedAt: Fixtures.reference)
        #expect(try store.isNotificationProcessed(notification.notificationUUID) == false)
        #expect(try store.markNotificationProcessed(notification))
        #expect(try store.markNotificationProcessed(notification) == false)
        #expect(try store.isNotificationProcessed(notification.notificationUUID))
    }
}
