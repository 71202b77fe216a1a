/// The recorder's two mailboxes as the socket thread sees them.
struct RecorderChannels: Sendable {
    /// Socket thread → recorder.
    let requests: Mailbox<RecorderRequest>
    /// Recorder → socket thread (replies to one client, reports to watchers).
    let replies: Mailbox<DaemonReply>
}
