import Foundation
import GRDB
import GripAnalysis
import GripEntitlements
import GripProtocol

extension RecordingStore {
    /// Stores an imported test in one IMMEDIATE transaction: the free plan's admission, the samples, griptrack's
    /// efforts and summary (as ``saveRecording(_:samples:draft:endedAt:context:now:)``), and the app's own figures
    /// beside them. A refusal or a failure leaves nothing behind.
    ///
    /// - Parameters:
    ///   - recording: griptrack's analysis of the samples.
    ///   - samples: The samples in order (µs on the file's timeline, kg as the file wrote them).
    ///   - draft: Identity, wall-clock start, device and profile.
    ///   - endedAt: Wall-clock end.
    ///   - figures: What the app computed.
    ///   - context: Bypass flag and free plan.
    ///   - now: The system clock, for the entitlement decision.
    /// - Returns: The stored recording, in state `complete`.
    /// - Throws: ``GripStoreError/refused(reason:storedRecordings:)`` with the policy's text, or an SQLite error.
    public func saveImportedRecording(
        _ recording: Recording, samples: [StoredSample], draft: RecordingDraft, endedAt: Date, figures: ImportedFigures,
        context: AccessContext, now: Date
    ) throws(GripStoreError) -> RecordingID {
        try writeImmediate("save an imported recording") { db in
            let id = try Self.insertWholeRecording(
                db, recording, samples: samples, draft: draft, endedAt: endedAt, owner: owner, context: context, now: now)
            try ImportedFiguresRecord(recording: id, figures: figures).insert(db)
            for rep in figures.reps {
                try ImportedRepRecord(
                    recordingId: id.rawValue, setNumber: rep.set, repNumber: rep.rep, averageKilograms: rep.averageKilograms,
                    peakKilograms: rep.peakKilograms, medianKilograms: rep.medianKilograms
                ).insert(db)
            }
            return id
        }
    }

    /// One imported test, as ``saveImportedRecordings(_:context:now:)`` takes it.
    public struct ImportedRecording: Sendable {
        /// griptrack's analysis of the samples.
        public var recording: Recording
        /// The samples in order (µs on the file's timeline, kg as the file wrote them).
        public var samples: [StoredSample]
        /// Identity, wall-clock start, device, profile, hand and label.
        public var draft: RecordingDraft
        /// Wall-clock end.
        public var endedAt: Date
        /// What the app computed.
        public var figures: ImportedFigures

        /// Creates one.
        public init(recording: Recording, samples: [StoredSample], draft: RecordingDraft, endedAt: Date, figures: ImportedFigures) {
            self.recording = recording
            self.samples = samples
            self.draft = draft
            self.endedAt = endedAt
            self.figures = figures
        }
    }

    /// Stores several imported tests in one IMMEDIATE transaction, as ``saveImportedRecording(_:samples:draft:endedAt:figures:context:now:)``
    /// stores one: all of them, or, when the free plan refuses one or anything fails, none.
    ///
    /// - Parameters:
    ///   - imports: The tests, in the order they get their ids.
    ///   - context: Bypass flag and free plan.
    ///   - now: The system clock, for the entitlement decisions.
    /// - Returns: The stored recordings' ids, in order.
    /// - Throws: ``GripStoreError/refused(reason:storedRecordings:)`` for the first the free plan refuses (nothing is
    ///   stored then), or an SQLite error.
    public func saveImportedRecordings(
        _ imports: [ImportedRecording], context: AccessContext, now: Date
    ) throws(GripStoreError) -> [RecordingID] {
        try writeImmediate("save imported recordings") { db in
            var ids: [RecordingID] = []
            for item in imports {
                let id = try Self.insertWholeRecording(
                    db, item.recording, samples: item.samples, draft: item.draft, endedAt: item.endedAt, owner: owner,
                    context: context, now: now)
                try ImportedFiguresRecord(recording: id, figures: item.figures).insert(db)
                for rep in item.figures.reps {
                    try ImportedRepRecord(
                        recordingId: id.rawValue, setNumber: rep.set, repNumber: rep.rep, averageKilograms: rep.averageKilograms,
                        peakKilograms: rep.peakKilograms, medianKilograms: rep.medianKilograms
                    ).insert(db)
                }
                ids.append(id)
            }
            return ids
        }
    }

    /// The recording an earlier import of the same bytes made, if one is still stored.
    ///
    /// - Parameter contentDigest: ``ImportedFigures/contentDigest`` of the new import.
    /// - Returns: The oldest such recording's id, or `nil`.
    public func importedRecording(contentDigest: String) throws(GripStoreError) -> RecordingID? {
        try read("look for an earlier import") { db in
            try Int64.fetchOne(
                db, sql: "SELECT min(recordingId) FROM importedFigures WHERE contentDigest = ?", arguments: [contentDigest]
            ).map(RecordingID.init(rawValue:))
        }
    }

    /// The app's figures of an imported recording.
    ///
    /// - Parameter id: The recording.
    /// - Returns: Its figures, or `nil` for a recording that was not imported.
    /// - Throws: An SQLite error, or ``GripStoreError/sqlite(operation:code:extendedCode:message:)`` when the stored
    ///   fields no longer decode.
    public func importedFigures(of id: RecordingID) throws(GripStoreError) -> ImportedFigures? {
        try read("read the imported figures of recording \(id)") { db in
            guard let record = try ImportedFiguresRecord.fetchOne(db, key: id.rawValue) else { return nil }
            let reps = try ImportedRepRecord.filter(Column("recordingId") == id.rawValue)
                .order(Column("setNumber"), Column("repNumber"))
                .fetchAll(db)
            do {
                return try record.figures(reps: reps)
            } catch {
                throw GripStoreError.sqlite(
                    operation: "read the imported figures of recording \(id)", code: 11, extendedCode: 11,
                    message: "the stored header fields do not decode: \(error)")
            }
        }
    }

    /// The app's figures of an imported recording beside griptrack's, as `griptrack show` and the daemon's `SHOW`
    /// reply give them; the samples are read only when the app gave an RFD over the whole series to compare.
    ///
    /// - Parameters:
    ///   - row: The recording.
    ///   - efforts: Its efforts.
    ///   - samples: Its samples, when the caller has read them already (else they are read if needed).
    /// - Returns: The comparison, or `nil` for a recording that was not imported.
    /// - Throws: As ``importedFigures(of:)`` and ``samples(of:)``.
    package func importComparison(
        of row: RecordingRow, efforts: [StoredEffort], samples known: [StoredSample]? = nil
    ) throws(GripStoreError) -> ImportComparison? {
        guard let figures = try importedFigures(of: row.id) else { return nil }
        var series = known ?? []
        if figures.rfd2080KilogramsPerSecond != nil && known == nil { series = try samples(of: row.id) }
        return ImportComparison(figures, efforts: efforts, maxKg: row.maxKilograms, samples: series)
    }
}
