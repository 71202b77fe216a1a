import Foundation
import GripAnalysis
import GripProtocol
import GripStore
import Logging

/// Every store write the recorder makes besides a recording's sample commits (those are ``ChunkWriter``'s): a
/// recording's row (admitted, labelled, finished, discarded, finished late after the store recovered) and the
/// store-writer requests from the socket thread (PRO grant and revoke; DELETE and PRO import through
/// ``StoreChanges``), with the access summary they change. The recorder thread runs them all because it is the
/// store's only writer.
struct StoreWrites {
    private let store: RecordingStore
    private let settings: DaemonRecorder.Settings
    private let logger: Logger
    /// STATUS "access", read again after each write.
    private(set) var access: DaemonStatus.AccessSummary?
    /// The last refusal's text while the free plan still refuses, and whether it has been logged.
    private(set) var refusal: String?
    private var refusalLogged = false
    /// Each stored row's start: its wall-clock date and its stream instant (set once known). A row's end date is
    /// its start date plus the recording's length on the stream timeline, whatever the replay pace.
    private var rowStarts: [RecordingID: (date: Date, micros: Int64?)] = [:]
    /// Recordings that ended while the store refused writes: their held samples and summary, committed at the next
    /// successful retry so space coming back still completes them.
    private var unfinished: [(writer: ChunkWriter, summary: RecordingSummaryValues, efforts: [StoredEffort])] = []

    init(store: RecordingStore, settings: DaemonRecorder.Settings, logger: Logger) {
        self.store = store
        self.settings = settings
        self.logger = logger
    }

    /// Samples of finished recordings in memory waiting for the store.
    var unfinishedSampleCount: Int { unfinished.reduce(0) { $0 + $1.writer.bufferedCount } }

    // MARK: - Recording rows

    /// Asks the free plan for a row starting at `startedAt` (`startMicros` on the stream, when known).
    mutating func admit(
        startedAt: Date, startMicros: Int64?, hand: Hand?, label: String?, explicit: Bool
    ) -> RecorderStateMachine.StoreOutcome {
        defer { refreshAccess() }
        do {
            let id = try store.beginRecording(
                RecordingDraft(
                    startedAt: startedAt, device: settings.device, profile: settings.profile, hand: hand, label: label,
                    correction: settings.correction),
                context: settings.access, now: Date())
            rowStarts[id] = (startedAt, startMicros)
            refusal = nil
            refusalLogged = false
            return .started(id)
        } catch {
            switch error {
            case .refused(let reason, let stored):
                noteRefusal(reason, explicit: explicit)
                return .refused(reason: reason, stored: stored)
            default:
                logger.error("Could not start storing a recording", metadata: ["error": "\(error)"])
                return .failed("\(error)")
            }
        }
    }

    /// The stream instant a row starts at, once its recording's first sample is known.
    mutating func rowStarts(_ id: RecordingID, atMicros micros: Int64) {
        if let known = rowStarts[id], known.micros == nil { rowStarts[id] = (known.date, micros) }
    }

    func describe(_ id: RecordingID, hand: Hand?, label: String?) {
        do {
            try store.describeRecording(id, hand: hand, label: label)
        } catch {
            logger.warning("Could not label recording", metadata: ["recording.id": "\(id.rawValue)", "error": "\(error)"])
        }
    }

    /// Completes a row. `writer`: its chunk writer when its samples are being stored (`storedSamples` of them);
    /// `newestMicros`: the stream's newest instant, its end when the segmenter's recording never came; `trouble`:
    /// the store refuses writes, so the row waits for the retry.
    mutating func finish(
        _ finish: RecorderStateMachine.Finish, writer: ChunkWriter?, storedSamples: Int, newestMicros: Int64?,
        trouble: StorageTrouble?
    ) -> RecorderStateMachine.StoreOutcome {
        defer { refreshAccess() }
        let id = finish.id
        let end = finish.recording?.endMicros ?? newestMicros
        let start = rowStarts.removeValue(forKey: id)
        var endedAt = Date()
        if let start, let startMicros = start.micros, let end {
            endedAt = start.date.addingTimeInterval(Double(max(0, end &- startMicros)) / 1_000_000)
        } else if let start {
            endedAt = max(start.date, endedAt)
        }
        let recording = finish.recording
        let summary = recording.map { RecordingSummaryValues($0, endedAt: endedAt) }
            ?? RecordingSummaryValues(endedAt: endedAt, maxKilograms: nil, averageKilograms: nil)
        let efforts = (recording?.efforts ?? []).enumerated().map { StoredEffort($0.element, index: $0.offset) }
        if efforts.isEmpty {
            // Started and stopped with no pull between (a RECORD then STOP, MQTT ON then OFF, Ctrl-C before the
            // device answered): nothing worth keeping, and it must not take one of the free plan's slots.
            discard(id)
            logger.info(
                "Recording discarded: no effort was seen",
                metadata: ["recording.id": "\(id.rawValue)", "recording.samples": "\(storedSamples)"])
            return .discarded(id)
        }
        if let trouble, let writer {
            // Kept for the next retry: the row completes when the store accepts writes again.
            unfinished.append((writer, summary, efforts))
            logger.warning(
                "Recording ended while the store refuses writes; it is saved when the store recovers",
                metadata: ["recording.id": "\(id.rawValue)", "error": "\(trouble.problem)"])
            return .commitFailed(id, trouble.problem)
        }
        do {
            if let writer {
                try writer.finish(summary: summary, efforts: efforts)
            } else {
                try store.finishRecording(id, summary: summary, efforts: efforts)
            }
            logger.info(
                "Recording saved",
                metadata: [
                    "recording.id": "\(id.rawValue)", "recording.samples": "\(storedSamples)",
                    "recording.efforts": "\(efforts.count)",
                ])
            settings.recordingSaved()
            return .committed(id)
        } catch {
            logger.error("Could not finish recording", metadata: ["recording.id": "\(id.rawValue)", "error": "\(error)"])
            return .commitFailed(id, "\(error)")
        }
    }

    /// Completes the recordings that ended while the store refused writes, oldest first.
    mutating func finishUnfinished() throws(GripStoreError) {
        while let first = unfinished.first {
            try first.writer.finish(summary: first.summary, efforts: first.efforts)
            unfinished.removeFirst()
            logger.notice(
                "Recording saved after the store recovered", metadata: ["recording.id": "\(first.writer.recording.rawValue)"])
            settings.recordingSaved()
        }
    }

    /// Removes a row admitted for a RECORD that never got its recording (it must not hold a free slot).
    mutating func discard(_ id: RecordingID) {
        rowStarts[id] = nil
        do {
            try store.finishRecording(
                id, summary: RecordingSummaryValues(endedAt: Date(), maxKilograms: nil, averageKilograms: nil), efforts: [])
            try store.delete(id)
        } catch {
            logger.warning("Could not close an unused recording", metadata: ["recording.id": "\(id.rawValue)", "error": "\(error)"])
        }
        refreshAccess()
    }

    // MARK: - Store-writer requests

    /// PRO status, grant or revoke: returns the reply line, and whether the access summary was read again (STATUS
    /// then shows it), which happens unless the write failed.
    mutating func pro(_ action: ProRequest, actor: String) -> (line: String, accessRead: Bool) {
        let now = Date()
        do {
            switch action {
            case .status:
                break
            case .grant(let note, let expires):
                try store.grantPro(note: note, expires: expires, by: actor, now: now)
                logger.notice("Pro granted", metadata: ["pro.actor": "\(actor)", "pro.note": "\(note ?? "")"])
            case .revoke:
                let removed = try store.clearManualOverride(by: actor, note: nil, at: now)
                logger.notice("Pro revoked", metadata: ["pro.actor": "\(actor)", "pro.removed": "\(removed)"])
            }
        } catch {
            return (RequestProblem(message: "\(error)").line, false)
        }
        refreshAccess()
        guard let access else {
            return (RequestProblem(message: "could not read the entitlement state; see the daemon's log").line, true)
        }
        return (ProtocolMessage.pro(access), true)
    }

    /// DELETE or PRO import; returns the reply line. `openRecording` is being written and cannot be deleted.
    mutating func change(_ change: StoreChange, openRecording: RecordingID?, actor: String) -> String {
        defer { refreshAccess() }
        return StoreChanges.apply(
            change, store: store, access: settings.access, openRecording: openRecording, actor: actor, now: Date())
    }

    // MARK: - Access

    /// Reads the access summary again (a write, or STATUS: the stored count may have changed outside the daemon).
    mutating func refreshAccess() {
        do {
            let status = try store.accessStatus(settings.access, now: Date())
            access = DaemonStatus.AccessSummary(
                pro: status.access.isPro, reason: status.freeStorage ?? status.access.reason,
                stored: status.storedRecordings, limit: status.freeLimit, warning: status.freeWarning)
            if status.access.isPro || status.storedRecordings < status.freeLimit {
                refusal = nil
                refusalLogged = false
            }
        } catch {
            logger.warning("Could not read the entitlement state", metadata: ["error": "\(error)"])
        }
    }

    /// Remembers a refusal for STATUS; an automatic one is logged once until a recording is admitted again.
    private mutating func noteRefusal(_ reason: String, explicit: Bool) {
        refusal = reason
        if explicit {
            logger.info("Recording refused by the free plan", metadata: ["recording.explicit": "true", "refusal.reason": "\(reason)"])
        } else if !refusalLogged {
            refusalLogged = true
            logger.notice(
                "Recordings are not stored: the free plan's limit is reached",
                metadata: ["refusal.reason": "\(reason)"])
        }
    }
}
