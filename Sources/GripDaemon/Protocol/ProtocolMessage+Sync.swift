import GripProtocol
import GripSync

extension ProtocolMessage {
    /// STATUS `sync` (1.4): the sync service's last outcome; dates as Unix seconds like the store replies.
    static func syncObject(_ snapshot: SyncService.Snapshot) -> DaemonMessage.StatusReply.Sync {
        DaemonMessage.StatusReply.Sync(
            pendingRows: snapshot.pendingRows, lastAttemptAt: snapshot.lastAttemptAt.map(wallSeconds),
            lastSuccessAt: snapshot.lastSuccessAt.map(wallSeconds), lastError: snapshot.lastError,
            failures: snapshot.failures, nextPushS: snapshot.nextDelaySeconds,
            pushingSince: snapshot.pushingSince.map(wallSeconds))
    }
}
