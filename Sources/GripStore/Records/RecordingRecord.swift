import Foundation
import GRDB
import GripAnalysis

/// A row of the `recording` table.
struct RecordingRecord: Codable, FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "recording"

    /// GRDB's text, without its DateFormatter: the recorder writes this record when a recording begins and ends.
    static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy {
        .custom { StorageDate.text($0) }
    }

    /// Lowercase text, readable in the `sqlite3` shell.
    static func databaseUUIDEncodingStrategy(for column: String) -> DatabaseUUIDEncodingStrategy {
        .lowercaseString
    }

    var id: Int64?
    var uuid: UUID
    var startedAt: Date
    var endedAt: Date?
    var device: String
    var profile: String
    var hand: Hand?
    var label: String?
    var state: RecordingState
    /// Who is recording: a ``ProcessOwner`` token, checked by crash recovery.
    var owner: String?
    /// Host wall-clock time of the last committed sample chunk.
    var lastCommitAt: Date?
    var sampleCount: Int
    var maxKilograms: Double?
    var averageKilograms: Double?
    /// Who pulled (v8).
    var athlete: String?
    /// The grip, e.g. half crimp (v8).
    var grip: String?
    /// The edge depth in mm (v8).
    var edgeMillimetres: Double?
    /// The athlete's body weight in kg when recorded (v8).
    var bodyWeightKilograms: Double?
    /// The protocol run, as notation (v9).
    var protocolNotation: String?
    /// The max its target band was a percentage of, in kg (v9).
    var protocolMaxKilograms: Double?
    /// The correction's scale the samples were corrected with (v10); nil = none.
    var correctionScale: Double?
    /// The correction's offset in kg (v10); nil exactly when the scale is.
    var correctionOffsetKilograms: Double?

    mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }

    enum Columns {
        static let id = Column(CodingKeys.id)
        static let startedAt = Column(CodingKeys.startedAt)
        static let state = Column(CodingKeys.state)
        static let sampleCount = Column(CodingKeys.sampleCount)
        static let lastCommitAt = Column(CodingKeys.lastCommitAt)
    }

    func row(effortCount: Int) -> RecordingRow {
        RecordingRow(
            id: RecordingID(rawValue: id ?? -1), uuid: uuid, startedAt: startedAt, endedAt: endedAt,
            device: device, profile: profile, hand: hand, label: label, state: state, maxKilograms: maxKilograms,
            averageKilograms: averageKilograms, sampleCount: sampleCount, effortCount: effortCount,
            setup: RecordingSetup(
                athlete: athlete, grip: grip, edgeMillimetres: edgeMillimetres, bodyWeightKilograms: bodyWeightKilograms,
                protocolNotation: protocolNotation, protocolMaxKilograms: protocolMaxKilograms),
            correction: ForceCorrection(storedScale: correctionScale, offsetKilograms: correctionOffsetKilograms)
        )
    }
}
