import Foundation
import GripProtocol
import GripStore

/// The lines of the store requests (protocol 1.2): LIST, SHOW, READ, STATS, HISTORY, PLAN, DELETE and LABEL.
extension ProtocolMessage {
    /// Wall-clock time as seconds since 1970-01-01 UTC.
    static func wallSeconds(_ date: Date) -> Double { date.timeIntervalSince1970 }

    /// One recording row as the replies carry it.
    static func recordingObject(_ row: RecordingRow) -> DaemonMessage.RecordingObject {
        // Stored forces are float32 widened to double: sent back as float32, in their shortest exact form.
        DaemonMessage.RecordingObject(
            id: row.id.rawValue, uuid: row.uuid.uuidString.lowercased(), startedAt: wallSeconds(row.startedAt),
            endedAt: row.endedAt.map(wallSeconds), device: row.device, profile: row.profile, hand: row.hand?.rawValue,
            label: row.label, state: row.state.rawValue, maxKg: row.maxKilograms.map { Float($0) },
            avgKg: row.averageKilograms.map { Float($0) }, samples: row.sampleCount, efforts: row.effortCount,
            athlete: row.setup.athlete, grip: row.setup.grip, edgeMm: row.setup.edgeMillimetres,
            bodyWeightKg: row.setup.bodyWeightKilograms, protocol: row.setup.protocolNotation,
            protocolMaxKg: row.setup.protocolMaxKilograms, correctionScale: row.correction?.scale,
            correctionOffsetKg: row.correction?.offsetKilograms)
    }

    /// The `LABEL` reply (1.6): the recording as stored after the change.
    static func described(_ row: RecordingRow) -> String {
        DaemonMessage.LabelReply(recording: recordingObject(row)).line
    }

    /// One stored effort (stream times in seconds).
    static func effortObject(_ effort: StoredEffort) -> DaemonMessage.EffortObject {
        DaemonMessage.EffortObject(
            index: effort.index, start: seconds(effort.startMicros), end: seconds(effort.endMicros),
            duration: seconds(effort.durationMicros), peakKg: Float(effort.peakKilograms),
            meanKg: Float(effort.meanKilograms), timeToPeak: seconds(effort.timeToPeakMicros),
            rfdKgS: effort.rfdKilogramsPerSecond, impulseKgS: effort.impulseKilogramSeconds,
            baselineKg: Float(effort.baselineKilograms), open: effort.isOpen, openStart: effort.isOpenStart)
    }

    /// The `PLAN` reply: access as the resolver decides it, with the free plan's numbers.
    /// - Parameter provenance: 1.7: where an App Store Pro came from, when a sync brought it.
    static func plan(_ status: AccessStatus, provenance: String? = nil) -> String {
        DaemonMessage.PlanReply(
            pro: status.access.isPro, tier: status.access.tier.rawValue, source: status.access.source.rawValue,
            reason: status.access.reason, expires: status.access.expires.map(wallSeconds), storage: status.freeStorage,
            stored: status.storedRecordings, limit: status.freeLimit, provenance: provenance, warning: status.freeWarning
        ).line
    }

    /// The `LIST` reply.
    static func list(_ list: RecordingList, status: AccessStatus) -> String {
        DaemonMessage.ListReply(
            recordings: list.visible.map(recordingObject),
            damaged: list.damaged.map { DaemonMessage.ListReply.Damaged(id: $0.id, reason: $0.reason) },
            hidden: list.hiddenCount, pro: status.access.isPro, stored: status.storedRecordings, limit: status.freeLimit
        ).line
    }

    /// The `SHOW` reply; `imported` (1.9) for a test imported from another app.
    static func show(_ row: RecordingRow, efforts: [StoredEffort], imported: ImportComparison?) -> String {
        DaemonMessage.ShowReply(recording: recordingObject(row), efforts: efforts.map(effortObject), imported: imported).line
    }

    /// The `READ` reply: one page of samples, device times in seconds as in `SAMPLES`.
    static func read(_ id: RecordingID, page: SamplePage) -> String {
        DaemonMessage.ReadReply(
            id: id.rawValue, t: page.samples.map { seconds($0.micros) }, kg: page.samples.map(\.kilograms),
            next: page.nextSequence
        ).line
    }

    /// The `STATS` reply.
    static func stats(_ stats: RecordingStatistics, status: AccessStatus) -> String {
        DaemonMessage.StatsReply(
            recordings: stats.recordings, efforts: stats.efforts, samples: stats.samples, maxKg: stats.maxKilograms,
            avgKg: stats.averageKilograms, first: stats.first.map(wallSeconds), last: stats.last.map(wallSeconds),
            pro: status.access.isPro, stored: status.storedRecordings, limit: status.freeLimit
        ).line
    }

    /// The `HISTORY` reply: every recording (oldest first) with its efforts.
    static func history(_ recordings: [AnalysedRecording]) -> String {
        DaemonMessage.HistoryReply(recordings: recordings.map { recording in
            DaemonMessage.HistoryReply.Item(
                id: recording.id.rawValue, startedAt: wallSeconds(recording.startedAt),
                startUs: recording.recording.startMicros, endUs: recording.recording.endMicros,
                efforts: recording.recording.efforts.enumerated().map {
                    effortObject(StoredEffort($0.element, index: $0.offset))
                })
        }).line
    }

    /// The `DELETE` reply.
    static func deleted(_ id: RecordingID, status: AccessStatus?) -> String {
        DaemonMessage.DeleteReply(id: id.rawValue, stored: status?.storedRecordings, limit: status?.freeLimit).line
    }
}
