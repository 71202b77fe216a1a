import Foundation
import GRDB
import GripAnalysis

extension RecordingStore {
    /// Starts a recording if the admission policy allows one more stored recording.
    ///
    /// Counting and inserting happen in one IMMEDIATE transaction, so recorders in other processes wait for it:
    /// two of them can never both take the last free slot. The new recording holds its slot from now on; nothing
    /// is checked again while it records.
    ///
    /// - Parameters:
    ///   - draft: What is known at the start.
    ///   - admission: The entitlement policy: given the stored count, admit or refuse with the text to show. It
    ///     runs inside the transaction, so it must be quick and must not touch this store.
    /// - Returns: The new recording, in state `recording`, owned by this process.
    /// - Throws: ``GripStoreError/refused(reason:storedRecordings:)`` with the policy's text verbatim, or an
    ///   SQLite error.
    public func beginRecording(
        _ draft: RecordingDraft, admission: (StoredCount) -> AdmissionDecision
    ) throws(GripStoreError) -> RecordingID {
        try beginRecording(draft, owner: owner, admission: admission)
    }

    func beginRecording(
        _ draft: RecordingDraft, owner: ProcessOwner, admission: (StoredCount) -> AdmissionDecision
    ) throws(GripStoreError) -> RecordingID {
        try beginRecording(draft, owner: owner) { _, count in admission(count) }
    }

    /// The transaction behind every `beginRecording`: `admission` may read the entitlement state on `db`.
    func beginRecording(
        _ draft: RecordingDraft, owner: ProcessOwner, admission: (Database, StoredCount) throws -> AdmissionDecision
    ) throws(GripStoreError) -> RecordingID {
        try writeImmediate("start a recording") { db in
            try Self.insertRecording(db, draft, owner: owner, admission: admission)
        }
    }

    /// Counts, asks `admission`, and inserts the new row (state `recording`) on `db`, inside the caller's
    /// IMMEDIATE transaction.
    static func insertRecording(
        _ db: Database, _ draft: RecordingDraft, owner: ProcessOwner,
        admission: (Database, StoredCount) throws -> AdmissionDecision
    ) throws -> RecordingID {
        let stored = try RecordingRecord.fetchCount(db)
        if case .refuse(let reason) = try admission(db, StoredCount(recordings: stored)) {
            throw GripStoreError.refused(reason: reason, storedRecordings: stored)
        }
        var record = RecordingRecord(
            id: nil, uuid: draft.uuid, startedAt: draft.startedAt, endedAt: nil, device: draft.device,
            profile: draft.profile, hand: draft.hand, label: draft.label, state: .recording,
            owner: owner.token, lastCommitAt: nil, sampleCount: 0, maxKilograms: nil, averageKilograms: nil,
            athlete: draft.setup.athlete, grip: draft.setup.grip, edgeMillimetres: draft.setup.edgeMillimetres,
            bodyWeightKilograms: draft.setup.bodyWeightKilograms, protocolNotation: draft.setup.protocolNotation,
            protocolMaxKilograms: draft.setup.protocolMaxKilograms, correctionScale: draft.correction?.scale,
            correctionOffsetKilograms: draft.correction?.offsetKilograms
        )
        try record.insert(db)
        guard let id = record.id else { preconditionFailure("inserted recording without a row id") }
        try OutboxChange.recording(RecordingID(rawValue: id)).record(db)
        return RecordingID(rawValue: id)
    }

    /// Marks a recording `complete` with its end time, summary and efforts.
    ///
    /// Commit the last samples first (``ChunkWriter/finish(summary:efforts:)`` does both).
    ///
    /// - Parameters:
    ///   - id: A recording in state `recording`.
    ///   - summary: End time, max and average.
    ///   - efforts: Its efforts with their metrics; indices must be distinct.
    ///   - unlistedChunksFrom: The first chunk sequence that commits left unlisted in the sync outbox
    ///     (``OutboxListing/later``); it and every later chunk are listed with the finish.
    /// - Throws: ``GripStoreError/recordingNotFound(_:)``,
    ///   ``GripStoreError/recordingNotInProgress(_:state:)``, or an SQLite error.
    public func finishRecording(
        _ id: RecordingID, summary: RecordingSummaryValues, efforts: [StoredEffort], unlistedChunksFrom: Int? = nil
    ) throws(GripStoreError) {
        try writeImmediate("finish recording \(id)") { db in
            var record = try Self.fetchRecording(db, id)
            guard record.state == .recording else {
                throw GripStoreError.recordingNotInProgress(id, state: record.state)
            }
            if let first = unlistedChunksFrom { try Self.listChunks(of: id, from: first, db) }
            record.state = .complete
            record.owner = nil
            try Self.saveAnalysis(db, &record, summary: summary, efforts: efforts)
        }
    }

    /// Sets the hand and label of a recording, e.g. when `griptrack record` takes over one that started by itself.
    ///
    /// - Parameters:
    ///   - id: The recording, in any state.
    ///   - hand: The hand; `nil` keeps the stored one.
    ///   - label: The label; `nil` keeps the stored one.
    /// - Throws: ``GripStoreError/recordingNotFound(_:)`` or an SQLite error.
    public func describeRecording(_ id: RecordingID, hand: Hand?, label: String?) throws(GripStoreError) {
        try describeRecording(id, RecordingDescription(hand: hand, label: label))
    }

    /// Changes what a recording says about itself (`griptrack label`): each field given replaces the stored one, an
    /// empty text clears it, an absent one keeps it. The change goes to the sync outbox like any other.
    ///
    /// - Parameters:
    ///   - id: The recording, in any state.
    ///   - description: The change; check ``RecordingDescription/problem`` first.
    /// - Returns: The row as stored afterwards.
    /// - Throws: ``GripStoreError/recordingNotFound(_:)`` or an SQLite error.
    @discardableResult
    public func describeRecording(
        _ id: RecordingID, _ description: RecordingDescription
    ) throws(GripStoreError) -> RecordingRow {
        try writeImmediate("label recording \(id)") { db in
            var record = try Self.fetchRecording(db, id)
            if !description.isEmpty {
                func text(_ new: String?, _ old: String?) -> String? { new.map { $0.isEmpty ? nil : $0 } ?? old }
                if let hand = description.hand { record.hand = hand }
                record.label = text(description.label, record.label)
                record.athlete = text(description.athlete, record.athlete)
                record.grip = text(description.grip, record.grip)
                if let edge = description.edgeMillimetres { record.edgeMillimetres = edge }
                if let weight = description.bodyWeightKilograms { record.bodyWeightKilograms = weight }
                record.protocolNotation = text(description.protocolNotation, record.protocolNotation)
                if let max = description.protocolMaxKilograms { record.protocolMaxKilograms = max }
                try record.update(db)
                try OutboxChange.recording(id).record(db)
            }
            let efforts = try EffortRecord.filter(Column("recordingId") == id.rawValue).fetchCount(db)
            return record.row(effortCount: efforts)
        }
    }

    /// Replaces the summary and efforts of a finished recording, e.g. after analysing a recovered one's samples.
    /// Its state stays as it is.
    ///
    /// - Parameters:
    ///   - id: A recording in state `complete` or `recovered`.
    ///   - summary: End time, max and average.
    ///   - efforts: All its efforts (the stored ones are replaced).
    /// - Throws: ``GripStoreError/recordingNotFound(_:)``, ``GripStoreError/recordingInProgress(_:)``, or an
    ///   SQLite error.
    public func updateAnalysis(
        of id: RecordingID, summary: RecordingSummaryValues, efforts: [StoredEffort]
    ) throws(GripStoreError) {
        try writeImmediate("update recording \(id)") { db in
            var record = try Self.fetchRecording(db, id)
            guard record.state != .recording else { throw GripStoreError.recordingInProgress(id) }
            try EffortRecord.filter(Column("recordingId") == id.rawValue).deleteAll(db)
            try Self.saveAnalysis(db, &record, summary: summary, efforts: efforts)
        }
    }

    static func saveAnalysis(
        _ db: Database, _ record: inout RecordingRecord, summary: RecordingSummaryValues, efforts: [StoredEffort]
    ) throws {
        record.endedAt = summary.endedAt
        record.maxKilograms = summary.maxKilograms
        record.averageKilograms = summary.averageKilograms
        try record.update(db)
        let recording = RecordingID(rawValue: record.id ?? -1)
        for effort in efforts {
            try EffortRecord(recording: recording, effort: effort).insert(db)
        }
        try OutboxChange.recording(recording).record(db)
    }

    /// Lists the recording's chunks from sequence `first` on in the sync outbox; nothing when it has none there.
    static func listChunks(of id: RecordingID, from first: Int, _ db: Database) throws {
        let last = try Int.fetchOne(
            db, sql: "SELECT MAX(sequence) FROM sampleChunk WHERE recordingId = ?", arguments: [id.rawValue])
        if let last, last >= first { try OutboxChange.chunks(id, first...last).record(db) }
    }

    static func fetchRecording(_ db: Database, _ id: RecordingID) throws -> RecordingRecord {
        guard let record = try RecordingRecord.fetchOne(db, key: id.rawValue) else {
            throw GripStoreError.recordingNotFound(id)
        }
        return record
    }

    // MARK: - Recovery

    /// Closes every recording left in state `recording` by a process that is gone, marking it `recovered`.
    ///
    /// Its end time becomes the time of its last committed chunk (its start if it has none); its samples stay.
    /// Efforts are stored only when a recording finishes, so a recording whose writer died has none: they are derived
    /// again from its committed samples by the same segmenter as the live path (an effort the crash cut is `open`),
    /// and its max and average with them. Opening a store already does this; a long-running process may call it
    /// again.
    ///
    /// - Returns: The recovered recordings, oldest first.
    /// - Throws: An SQLite error.
    @discardableResult
    public func recoverAbandonedRecordings() throws(GripStoreError) -> [RecordingID] {
        try Self.recoverAbandoned(in: writer)
    }

    static func recoverAbandoned(in writer: any DatabaseWriter) throws(GripStoreError) -> [RecordingID] {
        try writeImmediate(writer, "recover unfinished recordings") { db in
            let open = try RecordingRecord
                .filter(RecordingRecord.Columns.state == RecordingState.recording.rawValue)
                .order(RecordingRecord.Columns.id)
                .fetchAll(db)
            var recovered: [RecordingID] = []
            for var record in open {
                if let token = record.owner, ProcessOwner.isAlive(token) { continue }
                let id = RecordingID(rawValue: record.id ?? -1)
                record.state = .recovered
                record.endedAt = record.lastCommitAt ?? record.startedAt
                record.owner = nil
                if try EffortRecord.filter(Column("recordingId") == id.rawValue).fetchCount(db) == 0,
                   let samples = try? decode(chunks(db, of: id), of: id), !samples.isEmpty
                {
                    // A damaged chunk leaves the recording without efforts rather than failing the store's open.
                    let recording = RecoveredRecording.analyse(samples)
                    record.maxKilograms = recording.maxKg.map(Double.init)
                    record.averageKilograms = recording.averageKg.map(Double.init)
                    for (index, effort) in recording.efforts.enumerated() {
                        try EffortRecord(recording: id, effort: StoredEffort(effort, index: index)).insert(db)
                    }
                }
                try record.update(db)
                // Which chunks its writer had listed is not kept (that would be another page in every commit): all of
                // them go to the outbox, and the server's upserts absorb those it has.
                try Self.listChunks(of: id, from: 0, db)
                try OutboxChange.recording(id).record(db)
                recovered.append(id)
            }
            return recovered
        }
    }

    // MARK: - Reading

    /// The newest recordings, and how many older ones are left out.
    ///
    /// Nothing is deleted to honour a limit: a free history passes `limit: 5` and shows the hidden count.
    ///
    /// - Parameters:
    ///   - limit: How many to show, newest (by start time) first; `nil` for all.
    ///   - filter: Only recordings that match it; the hidden count counts matching ones only.
    /// - Returns: The visible rows and the hidden count.
    /// - Throws: An SQLite error.
    public func listRecordings(limit: Int?, filter: RecordingFilter = RecordingFilter()) throws(GripStoreError) -> RecordingList {
        try read("list recordings") { db in
            var conditions: [String] = []
            var arguments = StatementArguments()
            // Names compare without case: `--athlete ana` finds Ana.
            if let athlete = filter.athlete {
                conditions.append("athlete = ? COLLATE NOCASE")
                arguments += [athlete]
            }
            if let grip = filter.grip {
                conditions.append("grip = ? COLLATE NOCASE")
                arguments += [grip]
            }
            if let hand = filter.hand {
                conditions.append("hand = ?")
                arguments += [hand.rawValue]
            }
            let condition = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
            let total = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM recording" + condition, arguments: arguments) ?? 0
            var sql = Self.recordingRowSelect + condition + " ORDER BY startedAt DESC, id DESC"
            if let limit {
                sql += " LIMIT ?"
                arguments += [max(0, limit)]
            }
            // Columns are read by position rather than through `Decodable`: a full history of 10,000 rows decodes
            // in half the time (Benchmarks/StoreBenchmarks).
            var visible: [RecordingRow] = []
            var damaged: [DamagedRecording] = []
            let cursor = try Row.fetchCursor(db, sql: sql, arguments: arguments)
            while let row = try cursor.next() {
                switch Self.recordingRow(row) {
                case .success(let recording): visible.append(recording)
                case .failure(let damage): damaged.append(damage)
                }
            }
            return RecordingList(visible: visible, hiddenCount: total - visible.count - damaged.count, damaged: damaged)
        }
    }

    /// The SELECT whose rows ``recordingRow(_:)`` reads: v1's columns in v1's order, `effortCount`, then v8's, v9's
    /// and v10's.
    static let recordingRowSelect = """
        SELECT recording.id, recording.uuid, recording.startedAt, recording.endedAt, recording.device,
               recording.profile, recording.hand, recording.label, recording.state, recording.owner,
               recording.lastCommitAt, recording.sampleCount, recording.maxKilograms, recording.averageKilograms,
               (SELECT COUNT(*) FROM effort WHERE effort.recordingId = recording.id) AS effortCount,
               recording.athlete, recording.grip, recording.edgeMillimetres, recording.bodyWeightKilograms,
               recording.protocolNotation, recording.protocolMaxKilograms,
               recording.correctionScale, recording.correctionOffsetKilograms
        FROM recording
        """

    /// A row of ``recordingRowSelect``, read by column position, or why it
    /// cannot be read: a value not of its column's type, or not a valid uuid, state or date (a damaged or hand-edited
    /// file; GRDB's subscripts would trap on it).
    static func recordingRow(_ row: Row) -> Result<RecordingRow, DamagedRecording> {
        let id = try? row.decode(Int64.self, atIndex: 0)
        func column<Value: DatabaseValueConvertible>(_ index: Int, _ name: String) throws(DamagedRecording) -> Value {
            do {
                return try row.decode(atIndex: index)
            } catch {
                throw DamagedRecording(id: id, reason: "\(name) holds \(row[index] as DatabaseValue), not a \(Value.self)")
            }
        }
        do throws(DamagedRecording) {
            let uuidText: String = try column(1, "uuid")
            let stateText: String = try column(8, "state")
            guard let uuid = UUID(uuidString: uuidText) else {
                throw DamagedRecording(id: id, reason: "uuid \"\(uuidText)\" is not a UUID")
            }
            guard let state = RecordingState(rawValue: stateText) else {
                throw DamagedRecording(id: id, reason: "state \"\(stateText)\" is not a recording state")
            }
            let hand: String? = try column(6, "hand")
            let correctionScale: Double? = try column(21, "correctionScale")
            let correctionOffset: Double? = try column(22, "correctionOffsetKilograms")
            return .success(RecordingRow(
                id: RecordingID(rawValue: try column(0, "id")), uuid: uuid, startedAt: try column(2, "startedAt"),
                endedAt: try column(3, "endedAt"), device: try column(4, "device"), profile: try column(5, "profile"),
                hand: hand.flatMap(Hand.init(rawValue:)), label: try column(7, "label"), state: state,
                maxKilograms: try column(12, "maxKilograms"), averageKilograms: try column(13, "averageKilograms"),
                sampleCount: try column(11, "sampleCount"), effortCount: try column(14, "effortCount"),
                setup: RecordingSetup(
                    athlete: try column(15, "athlete"), grip: try column(16, "grip"),
                    edgeMillimetres: try column(17, "edgeMillimetres"),
                    bodyWeightKilograms: try column(18, "bodyWeightKilograms"),
                    protocolNotation: try column(19, "protocolNotation"),
                    protocolMaxKilograms: try column(20, "protocolMaxKilograms")),
                correction: ForceCorrection(storedScale: correctionScale, offsetKilograms: correctionOffset)))
        } catch {
            return .failure(error)
        }
    }

    /// One recording.
    ///
    /// - Parameter id: The recording.
    /// - Returns: Its row, or `nil` if there is none.
    /// - Throws: An SQLite error.
    public func recording(_ id: RecordingID) throws(GripStoreError) -> RecordingRow? {
        try read("read recording \(id)") { db in
            guard let record = try RecordingRecord.fetchOne(db, key: id.rawValue) else { return nil }
            let efforts = try EffortRecord.filter(Column("recordingId") == id.rawValue).fetchCount(db)
            return record.row(effortCount: efforts)
        }
    }

    /// The efforts of a recording, by index.
    ///
    /// - Parameter id: The recording.
    /// - Returns: Its efforts; empty while recording.
    /// - Throws: ``GripStoreError/recordingNotFound(_:)`` or an SQLite error.
    public func efforts(of id: RecordingID) throws(GripStoreError) -> [StoredEffort] {
        try read("read the efforts of recording \(id)") { db in
            _ = try Self.fetchRecording(db, id)
            return try EffortRecord.filter(Column("recordingId") == id.rawValue)
                .order(Column("effortIndex"))
                .fetchAll(db)
                .map(\.effort)
        }
    }

    /// How many recordings are stored, in any state.
    ///
    /// - Returns: The count the admission policy would see now.
    /// - Throws: An SQLite error.
    public func recordingCount() throws(GripStoreError) -> Int {
        try read("count recordings") { db in try RecordingRecord.fetchCount(db) }
    }

    // MARK: - Deleting

    /// Deletes a recording with its efforts and samples, freeing its slot.
    ///
    /// - Parameter id: The recording.
    /// - Returns: `false` if there was no such recording.
    /// - Throws: ``GripStoreError/recordingInProgress(_:)`` if a live process is still recording it, or an
    ///   SQLite error.
    @discardableResult
    public func delete(_ id: RecordingID) throws(GripStoreError) -> Bool {
        try writeImmediate("delete recording \(id)") { db in
            guard let record = try RecordingRecord.fetchOne(db, key: id.rawValue) else { return false }
            if record.state == .recording, let token = record.owner, ProcessOwner.isAlive(token) {
                throw GripStoreError.recordingInProgress(id)
            }
            try OutboxChange.deleted(id).record(db)
            return try record.delete(db)
        }
    }
}
