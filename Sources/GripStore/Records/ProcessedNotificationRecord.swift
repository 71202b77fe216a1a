import Foundation
import GRDB

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
