import Foundation
import GRDB

/// A row of the `signedDateHighWater` table: the newest `signedDate` accepted per kind and original transaction.
struct SignedDateHighWaterRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "signedDateHighWater"

    var kind: SignedDateHighWaterKind
    var originalTransactionId: String
    var newestSignedDateMillis: Double
}
