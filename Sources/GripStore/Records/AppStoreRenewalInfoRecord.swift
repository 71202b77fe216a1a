import Foundation
import GRDB

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
