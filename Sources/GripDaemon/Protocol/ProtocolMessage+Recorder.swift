import GripProtocol
// The lines of protocol 1.1's recorder and entitlement messages (docs/protocol.md): RECORD, STOP and PRO replies,
// RECORDER reports, and STATUS's "recorder" and "access" objects.

extension ProtocolMessage {
    typealias FinishedRecording = DaemonMessage.FinishedRecording

    static func recordStarted(saving: Bool, id: Int64?, access: String?) -> String {
        DaemonMessage.RecordReply.started(saving: saving, id: id, access: access).line
    }

    static func recordRefused(reason: String, stored: Int, limit: Int) -> String {
        DaemonMessage.RecordReply.refused(reason: reason, stored: stored, limit: limit).line
    }

    /// The STOP reply: "saved" with the row id and scores (and the free plan's warning, if any), or "discarded" for
    /// a live-only recording.
    static func stopped(_ finished: FinishedRecording, warning: String?) -> String {
        DaemonMessage.StopReply(finished: finished, warning: warning).line
    }

    static func pro(_ access: DaemonStatus.AccessSummary) -> String {
        DaemonMessage.ProReply(access: accessObject(access)).line
    }

    static func recorderStarted(id: Int64?, explicit: Bool, hand: String?, label: String?) -> String {
        DaemonMessage.RecorderReport(event: "started", id: id, explicit: explicit, hand: hand, label: label).line
    }

    static func recorderRefused(explicit: Bool, reason: String) -> String {
        DaemonMessage.RecorderReport(event: "refused", explicit: explicit, reason: reason).line
    }

    /// RECORDER "storage_failed": the store stopped accepting writes; samples are held in memory meanwhile.
    static func recorderStorageFailed(problem: String, heldSamples: Int, retrySeconds: Int) -> String {
        DaemonMessage.RecorderReport(
            event: "storage_failed", problem: problem, heldSamples: heldSamples, retryS: retrySeconds
        ).line
    }

    /// RECORDER "storage_recovered": the held samples were committed; recording goes on in the same row.
    static func recorderStorageRecovered(committedSamples: Int, droppedSamples: Int) -> String {
        DaemonMessage.RecorderReport(
            event: "storage_recovered", committedSamples: committedSamples, droppedSamples: droppedSamples
        ).line
    }

    /// RECORDER "saved" (with the row id) or "discarded" (live-only).
    static func recorderFinished(_ finished: FinishedRecording) -> String {
        DaemonMessage.RecorderReport(finished: finished).line
    }

    /// STATUS "recorder": idle or recording, and how.
    static func recorderObject(_ state: DaemonStatus.RecorderState) -> DaemonMessage.StatusReply.Recorder {
        DaemonMessage.StatusReply.Recorder(
            state: state.recording ? "recording" : "idle", explicit: state.explicit, saving: state.saving,
            id: state.saving ? state.id : nil, refusal: state.refusal, problem: state.problem,
            heldSamples: state.problem == nil ? nil : state.heldSamples)
    }

    /// STATUS "access" (the PRO reply carries the same fields).
    static func accessObject(_ access: DaemonStatus.AccessSummary) -> DaemonMessage.AccessObject {
        DaemonMessage.AccessObject(
            pro: access.pro, reason: access.reason, stored: access.stored, limit: access.limit, warning: access.warning)
    }
}
