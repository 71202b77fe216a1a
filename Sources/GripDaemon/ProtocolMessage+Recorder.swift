import GripProtocol
// The lines of protocol 1.1's recorder and entitlement messages (docs/protocol.md): RECORD, STOP and PRO replies,
// RECORDER reports, and STATUS's "recorder" and "access" objects.

extension ProtocolMessage {
    /// How a finished recording is described in STOP and RECORDER lines.
    struct FinishedRecording: Sendable, Equatable {
        /// The stored row; nil when it was not saved.
        var id: Int64?
        var explicit: Bool
        var samples: Int
        var efforts: Int
        var maxKilograms: Float?
        var averageKilograms: Float?
        var hand: String?
        var label: String?
    }

    static func recordStarted(saving: Bool, id: Int64?, access: String?) -> String {
        var line = JSONLine(class: "RECORD")
        line.add("event", "started")
        line.add("saving", saving)
        if saving, let id { line.add("id", Int(id)) }
        if let access { line.add("access", access) }
        return line.line
    }

    static func recordRefused(reason: String, stored: Int, limit: Int) -> String {
        var line = JSONLine(class: "RECORD")
        line.add("event", "refused")
        line.add("reason", reason)
        line.add("stored", stored)
        line.add("limit", limit)
        return line.line
    }

    /// The STOP reply: "saved" with the row id and scores, or "discarded" for a live-only recording.
    static func stopped(_ finished: FinishedRecording) -> String {
        var line = JSONLine(class: "STOP")
        addOutcome(finished, to: &line)
        if let max = finished.maxKilograms { line.add("max_kg", max) }
        if let average = finished.averageKilograms { line.add("avg_kg", average) }
        return line.line
    }

    static func pro(_ access: DaemonStatus.AccessSummary) -> String {
        var line = JSONLine(class: "PRO")
        addAccess(access, to: &line)
        return line.line
    }

    static func recorderStarted(id: Int64?, explicit: Bool, hand: String?, label: String?) -> String {
        var line = JSONLine(class: "RECORDER")
        line.add("event", "started")
        if let id { line.add("id", Int(id)) }
        line.add("explicit", explicit)
        if let hand { line.add("hand", hand) }
        if let label { line.add("label", label) }
        return line.line
    }

    static func recorderRefused(explicit: Bool, reason: String) -> String {
        var line = JSONLine(class: "RECORDER")
        line.add("event", "refused")
        line.add("explicit", explicit)
        line.add("reason", reason)
        return line.line
    }

    /// RECORDER "storage_failed": the store stopped accepting writes; samples are held in memory meanwhile.
    static func recorderStorageFailed(problem: String, heldSamples: Int, retrySeconds: Int) -> String {
        var line = JSONLine(class: "RECORDER")
        line.add("event", "storage_failed")
        line.add("problem", problem)
        line.add("held_samples", heldSamples)
        line.add("retry_s", retrySeconds)
        return line.line
    }

    /// RECORDER "storage_recovered": the held samples were committed; recording goes on in the same row.
    static func recorderStorageRecovered(committedSamples: Int, droppedSamples: Int) -> String {
        var line = JSONLine(class: "RECORDER")
        line.add("event", "storage_recovered")
        line.add("committed_samples", committedSamples)
        line.add("dropped_samples", droppedSamples)
        return line.line
    }

    /// RECORDER "saved" (with the row id) or "discarded" (live-only).
    static func recorderFinished(_ finished: FinishedRecording) -> String {
        var line = JSONLine(class: "RECORDER")
        addOutcome(finished, to: &line)
        line.add("explicit", finished.explicit)
        if let hand = finished.hand { line.add("hand", hand) }
        if let label = finished.label { line.add("label", label) }
        return line.line
    }

    /// The fields STOP and RECORDER share: "saved" + id, or "discarded"; then samples and efforts.
    private static func addOutcome(_ finished: FinishedRecording, to line: inout JSONLine) {
        if let id = finished.id {
            line.add("event", "saved")
            line.add("id", Int(id))
        } else {
            line.add("event", "discarded")
        }
        line.add("samples", finished.samples)
        line.add("efforts", finished.efforts)
    }

    /// STATUS "recorder": `{"state":"idle"|"recording","explicit":…,"saving":…,"id":…,"refusal":…}`.
    static func recorderObject(_ state: DaemonStatus.RecorderState) -> String {
        var object = JSONLine()
        object.add("state", state.recording ? "recording" : "idle")
        object.add("explicit", state.explicit)
        object.add("saving", state.saving)
        if state.saving, let id = state.id { object.add("id", Int(id)) }
        if let refusal = state.refusal { object.add("refusal", refusal) }
        if let problem = state.problem {
            object.add("problem", problem)
            object.add("held_samples", state.heldSamples)
        }
        return object.object
    }

    /// STATUS "access": `{"pro":…,"reason":…,"stored":…,"limit":…}` (the PRO reply carries the same fields).
    static func accessObject(_ access: DaemonStatus.AccessSummary) -> String {
        var object = JSONLine()
        addAccess(access, to: &object)
        return object.object
    }

    private static func addAccess(_ access: DaemonStatus.AccessSummary, to line: inout JSONLine) {
        line.add("pro", access.pro)
        line.add("reason", access.reason)
        line.add("stored", access.stored)
        line.add("limit", access.limit)
    }
}
