import GripProtocol
import GripSync

extension ProtocolMessage {
    /// STATUS `sync` (1.4): the sync service's last outcome; dates as Unix seconds like the store replies.
    static func syncObject(_ snapshot: SyncService.Snapshot) -> String {
        var object = JSONLine()
        object.add("pending_rows", snapshot.pendingRows)
        if let attempt = snapshot.lastAttemptAt { object.add("last_attempt_at", wallSeconds(attempt)) }
        if let success = snapshot.lastSuccessAt { object.add("last_success_at", wallSeconds(success)) }
        if let error = snapshot.lastError { object.add("last_error", error) }
        object.add("failures", snapshot.failures)
        object.add("next_push_s", snapshot.nextDelaySeconds)
        if let since = snapshot.pushingSince { object.add("pushing_since", wallSeconds(since)) }
        return object.object
    }
}
