import Foundation
import GripAnalysis
import GripEntitlements
import GripStore
import GripSystem
import Logging
import ServiceLifecycle

/// The daemon's recorder: the only thread that writes the store (docs/design.md, "Storage" and "Entitlements").
///
/// It runs its own `poll(2)` loop over three wake pipes: the recorder feed (every sample and segment event from the
/// consumer thread, plus the outcome of each command it applied), the request mailbox (RECORD, STOP, PRO and
/// disconnects from the socket thread) and a stop pipe. The feed wakes it for events at once but not for each
/// sample: while nothing is recorded, samples (the pre-roll window) wake it 4096 at a time; while a recording's
/// samples flow, the poll timeout is the commit tick (every 0.5 s: take the feed, commit everything), and a tick
/// that finds no samples ends the ticking until the next one arrives. So an idle daemon makes no periodic wakeups
/// and a recording one about two a second instead of one per notification. Replies and RECORDER reports go back to the socket thread through the reply mailbox.
///
/// - **Passive mode**: every recording the segmenter opens asks the free plan for a slot
///   (`RecordingStore.beginRecording(_:context:now:)`, one IMMEDIATE transaction). A refusal stores nothing: the
///   live view is untouched, watchers get RECORDER "refused", STATUS shows the text, and the log says it once
///   until a recording is admitted again.
/// - **Explicit mode** (RECORD/STOP, PROTOCOL 1.1): admission happens when RECORD arrives; the consumer then opens
///   the recording (or makes the automatic one explicit) and the reply waits for that outcome. A live-only RECORD
///   (`save: false`) is a view with its own summary and never touches a stored recording.
///
/// Every decision is `RecorderStateMachine`'s (pure, tested with exact action lists); `RecorderLoop` is the
/// poll-and-dispatch shell that carries them out, with `SampleRouter` (where samples go), `CommitSchedule` (when
/// they are committed, pure), `StoreWrites` (every other store write) and `RecorderLines` (the protocol lines). A stored recording's start date is the wall clock at the stream instant it starts;
/// its end date is that plus its length on the stream timeline (sample µs), so a replay at any pace stores the same
/// length.
///
/// Shutdown: the group stops services in reverse order, so the pipeline has ended (closing the open recording)
/// before the recorder is asked to stop; it then takes the last outputs, finishes the row and returns.
final class DaemonRecorder: Service, CustomStringConvertible {
    /// What the recorder needs besides its channels.
    struct Settings: Sendable {
        /// The entitlement context (bypass flag, free plan).
        var access: AccessContext
        /// How much recent stream the pre-roll window keeps (stream µs): at least the segmenter's pre-roll plus the
        /// time an effort takes to be accepted, since a recording's `recordingStarted` names a start that far back.
        /// Only a size: which samples belong to a recording is the segmenter's start and end, never worked out here.
        var retentionMicros: Int64
        /// The most samples the window keeps (≈ 3 min at the Progressor's 88 Hz).
        var retentionSamples = 16_384
        /// Stored with each recording.
        var device: String
        var profile: String
        /// The sensor's correction the pipeline applies (`[device] scale`, `offset_kg`), stored with each recording.
        var correction: ForceCorrection? = nil
        /// Called on the recorder's thread after each recording is saved (the sync service pushes then).
        var recordingSaved: @Sendable () -> Void = {}
    }

    let store: RecordingStore
    let settings: Settings
    let feed: RecorderFeed
    let requests: Mailbox<RecorderRequest>
    let replies: Mailbox<DaemonReply>
    let control: PipelineControl
    let status: DaemonStatus
    let logger: Logger
    /// Marks the recorder busy per wake-up, for the watchdog.
    let liveness: ThreadLiveness?
    private let stop: WakePipe

    var description: String { "DaemonRecorder" }

    init(
        store: RecordingStore, settings: Settings, feed: RecorderFeed, requests: Mailbox<RecorderRequest>,
        replies: Mailbox<DaemonReply>, control: PipelineControl, status: DaemonStatus,
        liveness: ThreadLiveness? = nil, logger: Logger
    ) throws(DaemonError) {
        self.store = store
        self.settings = settings
        self.feed = feed
        self.requests = requests
        self.replies = replies
        self.control = control
        self.status = status
        self.logger = logger
        self.liveness = liveness
        stop = try WakePipe(daemonPurpose: "recorder stop")
    }

    deinit { stop.close() }

    func run() async throws {
        async let recorded: Void = NamedThread.run(name: "gt-recorder") { [self] in
            var loop = RecorderLoop(recorder: self, stopDescriptor: stop.readDescriptor)
            loop.run()
        }
        try? await gracefulShutdown()
        stop.signal()
        await recorded
    }
}
