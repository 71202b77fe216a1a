import Foundation
import GRDB
import GripAnalysis
import GripEntitlements

// The mapping between GripAnalysis values (what the pipeline computes) and the stored rows, shared by the daemon
// and the CLI.

extension StoredEffort {
    /// The stored form of an analysed effort.
    ///
    /// - Parameters:
    ///   - effort: The effort as the segmenter closed it (stream µs, kg).
    ///   - index: Its position in the recording, from 0.
    public init(_ effort: Effort, index: Int) {
        self.init(
            index: index, startMicros: effort.startMicros, endMicros: effort.endMicros,
            peakKilograms: Double(effort.peakKg), meanKilograms: Double(effort.meanKg),
            durationMicros: effort.durationMicros, timeToPeakMicros: effort.timeToPeakMicros,
            rfdKilogramsPerSecond: effort.rfdKgPerSecond, impulseKilogramSeconds: effort.impulseKgSeconds,
            baselineKilograms: Double(effort.baselineKg), isOpenStart: effort.openStart, isOpen: effort.open)
    }
}

extension Effort {
    /// An effort read back from the store. The store keeps no per-effort sample count, so ``sampleCount`` is 0;
    /// the peak's time is `startMicros + timeToPeakMicros`.
    ///
    /// - Parameter stored: The stored effort.
    public init(_ stored: StoredEffort) {
        self.init(
            startMicros: stored.startMicros, endMicros: stored.endMicros, durationMicros: stored.durationMicros,
            peakKg: Float(stored.peakKilograms), peakMicros: stored.startMicros + stored.timeToPeakMicros,
            meanKg: Float(stored.meanKilograms), timeToPeakMicros: stored.timeToPeakMicros,
            rfdKgPerSecond: stored.rfdKilogramsPerSecond, impulseKgSeconds: stored.impulseKilogramSeconds,
            baselineKg: Float(stored.baselineKilograms), openStart: stored.isOpenStart, open: stored.isOpen,
            sampleCount: 0)
    }
}

extension RecordingSummaryValues {
    /// The summary of an analysed recording.
    ///
    /// - Parameters:
    ///   - recording: The recording (max over every effort, average over the complete ones).
    ///   - endedAt: Host wall-clock end time.
    public init(_ recording: Recording, endedAt: Date) {
        self.init(
            endedAt: endedAt, maxKilograms: recording.maxKg.map(Double.init),
            averageKilograms: recording.averageKg.map(Double.init))
    }
}

/// A stored recording with its efforts as a GripAnalysis value, for trends and comparisons.
public struct AnalysedRecording: Sendable, Equatable {
    /// The row id.
    public var id: RecordingID
    /// Host wall-clock start.
    public var startedAt: Date
    /// The recording; its `startMicros`/`endMicros` are the wall-clock start and end in Unix µs (so recordings order
    /// across captures), its efforts keep their stream µs.
    public var recording: Recording

    /// Creates a value (the store makes these; the CLI rebuilds them from griptrackd's HISTORY reply).
    /// - Parameters: See the properties.
    public init(id: RecordingID, startedAt: Date, recording: Recording) {
        self.id = id
        self.startedAt = startedAt
        self.recording = recording
    }
}

/// Max and average over a set of stored recordings (the free `stats`).
public struct RecordingStatistics: Sendable, Equatable {
    /// Recordings counted.
    public var recordings: Int
    /// Efforts counted, open ones included.
    public var efforts: Int
    /// Samples stored in those recordings.
    public var samples: Int
    /// Highest effort peak (kg); `nil` without efforts.
    public var maxKilograms: Double?
    /// Mean of the peaks of the complete efforts, or of all when none is complete (kg); `nil` without efforts.
    public var averageKilograms: Double?
    /// Start of the oldest and newest recording counted.
    public var first: Date?
    public var last: Date?

    /// Creates a value (the store makes these; the CLI rebuilds them from griptrackd's STATS reply).
    /// - Parameters: See the properties; forces in kilograms.
    public init(
        recordings: Int, efforts: Int, samples: Int, maxKilograms: Double?, averageKilograms: Double?, first: Date?,
        last: Date?
    ) {
        self.recordings = recordings
        self.efforts = efforts
        self.samples = samples
        self.maxKilograms = maxKilograms
        self.averageKilograms = averageKilograms
        self.first = first
        self.last = last
    }
}

extension RecordingStatistics {
    /// The same figures as ``RecordingStore/statistics(limit:)``, for recordings read from elsewhere (the sync
    /// server): highest peak of all efforts, mean peak of the complete ones (of all when none is complete).
    ///
    /// - Parameters:
    ///   - starts: Each recording's start.
    ///   - samples: Samples in those recordings.
    ///   - efforts: Their efforts.
    public init(starts: [Date], samples: Int, efforts: [StoredEffort]) {
        let complete = efforts.filter { !$0.isOpen && !$0.isOpenStart }
        let averaged = complete.isEmpty ? efforts : complete
        self.init(
            recordings: starts.count, efforts: efforts.count, samples: samples,
            maxKilograms: efforts.map(\.peakKilograms).max(),
            averageKilograms: averaged.isEmpty
                ? nil : averaged.reduce(0) { $0 + $1.peakKilograms } / Double(averaged.count),
            first: starts.min(), last: starts.max())
    }
}

extension RecordingStore {
    /// Longest device-time span of one stored chunk (as ``ChunkWriter`` commits live).
    static let chunkSpanMicros: Int64 = 500_000
    /// The longest chunk a live commit writes (only samples held through a storage failure come near it).
    static let heldChunkSpanMicros: Int64 = 60_000_000

    /// Stores a finished recording in one IMMEDIATE transaction: admission (as
    /// ``beginRecording(_:context:now:)``), every sample in chunks of at most 0.5 s, the efforts and the summary.
    /// A refusal or a failure leaves nothing behind. For recordings known whole, e.g. `griptrack replay --save`;
    /// a live recorder uses ``beginRecording(_:context:now:)`` and a ``ChunkWriter``.
    ///
    /// - Parameters:
    ///   - recording: The analysed recording.
    ///   - samples: Its samples in order (stream µs, kg as reported).
    ///   - draft: Identity, wall-clock start, device and profile.
    ///   - endedAt: Host wall-clock end.
    ///   - context: Bypass flag and free plan.
    ///   - now: The system clock, for the entitlement decision.
    /// - Returns: The stored recording, in state `complete`.
    /// - Throws: ``GripStoreError/refused(reason:storedRecordings:)`` with the policy's text, or an SQLite error.
    public func saveRecording(
        _ recording: Recording, samples: [StoredSample], draft: RecordingDraft, endedAt: Date,
        context: AccessContext, now: Date
    ) throws(GripStoreError) -> RecordingID {
        try writeImmediate("save a recording") { db in
            try Self.insertWholeRecording(
                db, recording, samples: samples, draft: draft, endedAt: endedAt, owner: owner, context: context, now: now)
        }
    }

    /// The body of ``saveRecording(_:samples:draft:endedAt:context:now:)`` on `db`, inside the caller's IMMEDIATE
    /// transaction (an import adds the app's figures in the same one).
    static func insertWholeRecording(
        _ db: Database, _ recording: Recording, samples: [StoredSample], draft: RecordingDraft, endedAt: Date,
        owner: ProcessOwner, context: AccessContext, now: Date
    ) throws -> RecordingID {
        try requirePlausibleDates(start: draft.startedAt, end: endedAt)
        let id = try insertRecording(db, draft, owner: owner) { db, count in
            try admission(db, count: count, context: context, now: now)
        }
        _ = try insertChunks(samples, of: id, firstSequence: 0, maxSpanMicros: chunkSpanMicros, db)
        try listChunks(of: id, from: 0, db)
        var record = try fetchRecording(db, id)
        record.sampleCount = samples.count
        record.lastCommitAt = endedAt
        record.state = .complete
        record.owner = nil
        try saveAnalysis(
            db, &record, summary: RecordingSummaryValues(recording, endedAt: endedAt),
            efforts: recording.efforts.enumerated().map { StoredEffort($0.element, index: $0.offset) })
        return id
    }

    /// The newest recordings with their efforts, oldest first, for trends.
    ///
    /// - Parameter limit: How many of the newest; `nil` for all.
    /// - Returns: The recordings, by ascending start time.
    /// - Throws: An SQLite error.
    public func analysedRecordings(limit: Int?) throws(GripStoreError) -> [AnalysedRecording] {
        try read("read recordings for trends") { db in
            let limitClause = limit.map { " LIMIT \(max(0, $0))" } ?? ""
            let rows = try Row.fetchAll(
                db, sql: "SELECT id, startedAt, endedAt FROM recording ORDER BY startedAt DESC, id DESC" + limitClause)
            var efforts: [Int64: [Effort]] = [:]
            let effortSQL = """
                SELECT recordingId, startMicros, endMicros, peakKilograms, meanKilograms, durationMicros,
                       timeToPeakMicros, rfdKilogramsPerSecond, impulseKilogramSeconds, baselineKilograms, isOpen,
                       isOpenStart
                FROM effort
                """
            let filter = limit == nil ? "" : " WHERE recordingId IN (SELECT id FROM recording ORDER BY startedAt DESC, id DESC\(limitClause))"
            let cursor = try Row.fetchCursor(db, sql: effortSQL + filter + " ORDER BY recordingId, effortIndex")
            // Throwing decodes throughout: a damaged row is left out (`list` names it), never a trap.
            while let row = try cursor.next() {
                guard let start = try? row.decode(Int64.self, atIndex: 1),
                      let timeToPeak = try? row.decode(Int64.self, atIndex: 6),
                      let effort = try? Effort(
                        startMicros: start, endMicros: row.decode(atIndex: 2), durationMicros: row.decode(atIndex: 5),
                        peakKg: Float(row.decode(Double.self, atIndex: 3)), peakMicros: start &+ timeToPeak,
                        meanKg: Float(row.decode(Double.self, atIndex: 4)), timeToPeakMicros: timeToPeak,
                        rfdKgPerSecond: row.decode(atIndex: 7), impulseKgSeconds: row.decode(atIndex: 8),
                        baselineKg: Float(row.decode(Double.self, atIndex: 9)), openStart: row.decode(atIndex: 11),
                        open: row.decode(atIndex: 10), sampleCount: 0),
                      let recording = try? row.decode(Int64.self, atIndex: 0)
                else { continue }
                efforts[recording, default: []].append(effort)
            }
            return rows.reversed().compactMap { row -> AnalysedRecording? in
                guard let id = try? row.decode(Int64.self, atIndex: 0),
                      let startedAt = try? row.decode(Date.self, atIndex: 1),
                      let startMicros = Int64(exactly: (startedAt.timeIntervalSince1970 * 1_000_000).rounded())
                else { return nil }
                let endedAt: Date?
                do { endedAt = try row.decode(Date?.self, atIndex: 2) } catch { return nil }
                let endMicros = endedAt.flatMap { Int64(exactly: ($0.timeIntervalSince1970 * 1_000_000).rounded()) } ?? startMicros
                return AnalysedRecording(
                    id: RecordingID(rawValue: id), startedAt: startedAt,
                    recording: Recording(
                        startMicros: startMicros, endMicros: endMicros, efforts: efforts[id] ?? [],
                        falseStartsDropped: 0))
            }
        }
    }

    /// Max and average over the newest recordings.
    ///
    /// - Parameter limit: How many of the newest; `nil` for all (a free account passes 5: what its history shows).
    /// - Returns: Counts, highest effort peak (open efforts included: the force was measured) and mean peak of
    ///   the complete efforts (of all, when none is complete), as ``Recording`` defines them.
    /// - Throws: An SQLite error.
    public func statistics(limit: Int?) throws(GripStoreError) -> RecordingStatistics {
        try read("compute statistics") { db in
            let scope = limit.map { "SELECT id, startedAt, sampleCount FROM recording ORDER BY startedAt DESC, id DESC LIMIT \(max(0, $0))" }
                ?? "SELECT id, startedAt, sampleCount FROM recording"
            let recordings = try Row.fetchOne(
                db, sql: "SELECT COUNT(*), COALESCE(SUM(sampleCount), 0) FROM (\(scope))")
            // First and last in Swift, over the dates that decode: MIN/MAX over text would pick a damaged value.
            let dates = try Row.fetchAll(db, sql: "SELECT startedAt FROM (\(scope))")
                .compactMap { try? $0.decode(Date.self, atIndex: 0) }
            let efforts = try Row.fetchOne(
                db,
                sql: """
                    SELECT COUNT(*), MAX(peakKilograms),
                           COALESCE(AVG(CASE WHEN NOT isOpen AND NOT isOpenStart THEN peakKilograms END),
                                    AVG(peakKilograms))
                    FROM effort\(limit == nil ? "" : " WHERE recordingId IN (SELECT id FROM (\(scope)))")
                    """)
            return RecordingStatistics(
                recordings: (try? recordings?.decode(Int.self, atIndex: 0)) ?? 0,
                efforts: (try? efforts?.decode(Int.self, atIndex: 0)) ?? 0,
                samples: (try? recordings?.decode(Int.self, atIndex: 1)) ?? 0,
                maxKilograms: efforts.flatMap { try? $0.decode(Double?.self, atIndex: 1) },
                averageKilograms: efforts.flatMap { try? $0.decode(Double?.self, atIndex: 2) },
                first: dates.min(), last: dates.max())
        }
    }
}
