import Foundation
import GRDB

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
