import Foundation
import GripStore
import Logging
import ServiceLifecycle

/// The daemon's recorder: the only thread that writes the store (DESIGN.md §5, §6).
///
/// It runs its own `poll(2)` loop over three wake pipes: the recorder feed (every sample and segment event from the
/// consumer thread, plus the outcome of each command it applied), the request mailbox (RECORD, STOP, PRO and
/// disconnects from the socket thread) and a stop pipe. While a recording is stored, the poll timeout is the
/// chunk writer's next commit deadline; otherwise it sleeps without a timeout, so an idle daemon makes no periodic
/// wakeups. Replies and RECORDER reports go back to the socket thread through the reply mailbox.
///
/// - **Passive mode**: every recording the segmenter opens asks the free plan for a slot
///   (`RecordingStore.beginRecording(_:context:now:)`, one IMMEDIATE transaction). A refusal stores nothing: the
///   live view is untouched, watchers get RECORDER "refused", STATUS shows the text, and the log says it once
///   until a recording is admitted again.
/// - **Explicit mode** (RECORD/STOP, PROTOCOL 1.1): admission happens when RECORD arrives; the consumer then opens
///   the recording (or makes the automatic one explicit) and the reply waits for that outcome.
///
/// Shutdown: the group stops services in reverse order, so the pipeline has ended (closing the open recording)
/// before the recorder is asked to stop; it then takes the last outputs, finishes the row and returns.
final class DaemonRecorder: Service, CustomStringConvertible {
    /// What the recorder needs besides its channels.
    struct Settings: Sendable {
        /// The entitlement context (bypass flag, free plan).
        var access: AccessContext
        /// The segmenter's pre-roll and post-roll (stream µs).
        var preRollMicros: Int64
        var postRollMicros: Int64
        /// How much recent stream the pre-roll window keeps: the pre-roll plus time for an effort to be accepted.
        var retentionMicros: Int64
        /// The most samples the window keeps (≈ 3 min at the Progressor's 88 Hz).
        var retentionSamples = 16_384
        /// Stored with each recording.
        var device: String
        var profile: String
    }

    let store: RecordingStore
    let settings: Settings
    let feed: RecorderFeed
    let requests: Mailbox<RecorderRequest>
    let replies: Mailbox<DaemonReply>
    let control: PipelineControl
    let status: DaemonStatus
    let logger: Logger
    private let stop: WakePipe

    var description: String { "DaemonRecorder" }

    init(
        store: RecordingStore, settings: Settings, feed: RecorderFeed, requests: Mailbox<RecorderRequest>,
        replies: Mailbox<DaemonReply>, control: PipelineControl, status: DaemonStatus, logger: Logger
    ) throws(DaemonError) {
        self.store = store
        self.settings = settings
        self.feed = feed
        self.requests = requests
        self.replies = replies
        self.control = control
        self.status = status
        self.logger = logger
        stop = try WakePipe(purpose: "recorder stop")
    }

    deinit { stop.close() }

    func run() async throws {
        async let recorded: Void = ServiceThread.run(name: "griptrack-recorder") { [self] in
            var loop = RecorderLoop(recorder: self, stopDescriptor: stop.readDescriptor)
            loop.run()
        }
        try? await gracefulShutdown()
        stop.signal()
        await recorded
    }
}
