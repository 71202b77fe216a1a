import Foundation
import GRDB
import GripEntitlements

/// A store change, as one outbox row. Each change point in the store calls ``record(_:_:)`` once, inside the
/// transaction that makes the change, so the change and its row commit (or roll back) together.
enum OutboxChange {
    /// The recording's row or efforts changed.
    case recording(RecordingID)
    /// Chunks `sequences` of the recording were committed.
    case chunks(RecordingID, ClosedRange<Int>)
    /// The recording is being deleted (call before the delete: its UUID is read from its row).
    case deleted(RecordingID)
    /// The entitlement state changed; `event` names how.
    case entitlement(event: String)

    /// Appends the outbox row for this change on `db`, inside the caller's transaction.
    func record(_ db: Database, at date: Date = Date()) throws {
        switch self {
        case .recording(let id):
            try Self.insert(db, kind: .recording, recording: id, sequences: nil, at: date)
        case .chunks(let id, let sequences):
            try Self.insert(db, kind: .chunks, recording: id, sequences: sequences, at: date)
        case .deleted(let id):
            try Self.insert(db, kind: .deleted, recording: id, sequences: nil, at: date)
        case .entitlement(let event):
            // The resolver's answer after the change, without the configuration's bypass flag (the mirror shows
            // what the account holds, not this device's early-access setting).
            let access = resolve(try RecordingStore.fetchEntitlementState(db, bypass: false), now: date)
            let change = EntitlementChange(
                eventID: UUID(), event: event, tier: access.tier.rawValue, source: access.source.rawValue, reason: access.reason,
                expires: access.expires)
            let encoder = JSONEncoder()
            encoder.dateEncodingStrategy = .iso8601
            encoder.outputFormatting = .sortedKeys
            let payload = String(decoding: try encoder.encode(change), as: UTF8.self)
            try db.execute(
                sql: "INSERT INTO syncOutbox (kind, payload, at) VALUES ('entitlement', ?, ?)",
                arguments: [payload, date])
        }
    }

    private static func insert(
        _ db: Database, kind: OutboxEntry.Kind, recording: RecordingID, sequences: ClosedRange<Int>?, at date: Date
    ) throws {
        // The UUID comes from the row itself, so callers that hold only the row id need no extra read.
        // Cached: every live commit records its chunks here, twice a second.
        try db.cachedStatement(
            sql: """
                INSERT INTO syncOutbox (kind, recordingUUID, firstSequence, lastSequence, at)
                SELECT ?, uuid, ?, ?, ? FROM recording WHERE id = ?
                """
        ).execute(arguments: [
            kind.rawValue, sequences?.lowerBound, sequences?.upperBound, StorageDate.text(date), recording.rawValue,
        ])
    }
}
