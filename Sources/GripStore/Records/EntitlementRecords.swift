import Foundation
import GRDB

/// The single row of the `manualOverride` table (id 1), present while an override is set.
struct ManualOverrideRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "manualOverride"

    var id: Int = 1
    var note: String
    var expiresAt: Date?
    var grantedAt: Date
    var grantedBy: String

    init(note: String, expiresAt: Date?, grantedAt: Date, grantedBy: String) {
        self.note = note
        self.expiresAt = expiresAt
        self.grantedAt = grantedAt
        self.grantedBy = grantedBy
    }

    var value: ManualOverride {
        ManualOverride(note: note, expiresAt: expiresAt, grantedAt: grantedAt, grantedBy: grantedBy)
    }
}

/// A row of the `proAudit` table.
struct ProAuditRecord: Codable, FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "proAudit"

    var id: Int64?
    var at: Date
    var action: ProAuditEntry.Action
    var source: String
    var actor: String
    var note: String?
    var expiresAt: Date?

    init(at: Date, action: ProAuditEntry.Action, source: String, actor: String, note: String?, expiresAt: Date?) {
        self.at = at
        self.action = action
        self.source = source
        self.actor = actor
        self.note = note
        self.expiresAt = expiresAt
    }

    mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }

    var value: ProAuditEntry {
        ProAuditEntry(id: id, at: at, action: action, source: source, actor: actor, note: note, expiresAt: expiresAt)
    }
}

/// A row of the `appStoreTransaction` table.
struct AppStoreTransactionRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "appStoreTransaction"

    var transactionId: String
    var originalTransactionId: String
    var productId: String?
    var environment: String?
    var signedDateMillis: Double
    var purchaseDateMillis: Double?
    var expiresDateMillis: Double?
    var revocationDateMillis: Double?
    var payloadJSON: String
    var jws: String
    var verifiedAt: Date

    init(_ value: StoredTransaction) {
        transactionId = value.transactionId
        originalTransactionId = value.originalTransactionId
        productId = value.productId
        environment = value.environment
        signedDateMillis = value.signedDateMillis
        purchaseDateMillis = value.purchaseDateMillis
        expiresDateMillis = value.expiresDateMillis
        revocationDateMillis = value.revocationDateMillis
        payloadJSON = value.payloadJSON
        jws = value.jws
        verifiedAt = value.verifiedAt
    }

    var value: StoredTransaction {
        StoredTransaction(
            transactionId: transactionId, originalTransactionId: originalTransactionId, productId: productId,
            environment: environment, signedDateMillis: signedDateMillis, purchaseDateMillis: purchaseDateMillis,
            expiresDateMillis: expiresDateMillis, revocationDateMillis: revocationDateMillis,
            payloadJSON: payloadJSON, jws: jws, verifiedAt: verifiedAt
        )
    }
}

/// A row of the `appStoreRenewalInfo` table: the newest renewal info per original transaction.
struct AppStoreRenewalInfoRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "appStoreRenewalInfo"

    var originalTransactionId: String
    var environment: String?
    var signedDateMillis: Double
    var renewalDateMillis: Double?
    var gracePeriodExpiresDateMillis: Double?
    var payloadJSON: String
    var jws: String
    var verifiedAt: Date

    init(_ value: StoredRenewalInfo) {
        originalTransactionId = value.originalTransactionId
        environment = value.environment
        signedDateMillis = value.signedDateMillis
        renewalDateMillis = value.renewalDateMillis
        gracePeriodExpiresDateMillis = value.gracePeriodExpiresDateMillis
        payloadJSON = value.payloadJSON
        jws = value.jws
        verifiedAt = value.verifiedAt
    }

    var value: StoredRenewalInfo {
        StoredRenewalInfo(
            originalTransactionId: originalTransactionId, environment: environment, signedDateMillis: signedDateMillis,
            renewalDateMillis: renewalDateMillis, gracePeriodExpiresDateMillis: gracePeriodExpiresDateMillis,
            payloadJSON: payloadJSON, jws: jws, verifiedAt: verifiedAt
        )
    }
}

/// A row of the `signedDateHighWater` table: the newest `signedDate` accepted per kind and original transaction.
struct SignedDateHighWaterRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "signedDateHighWater"

    var kind: SignedDataKind
    var originalTransactionId: String
    var newestSignedDateMillis: Double
}

/// A row of the `processedNotification` table.
struct ProcessedNotificationRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "processedNotification"

    var notificationUUID: String
    var notificationType: String
    var subtype: String?
    var signedDateMillis: Double?
    var processedAt: Date

    init(_ value: ProcessedNotification) {
        notificationUUID = value.notificationUUID
        notificationType = value.notificationType
        subtype = value.subtype
        signedDateMillis = value.signedDateMillis
        processedAt = value.processedAt
    }
}
