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

    var value: ManualGrant {
        ManualGrant(note: note, expiresAt: expiresAt, grantedAt: grantedAt, grantedBy: grantedBy)
    }
}
