import Foundation
import GRDB

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
