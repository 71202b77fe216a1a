import Foundation
import GripAnalysis
import GripBlueZ
import GripStream
import GripSystem
import GripWire
import Logging
import ServiceLifecycle

/// The consumer loop as a service: runs `StreamConsumer` on its own thread into `PipelineSink`, which publishes
/// counters to STATUS, writes the live lines to watchers itself (`LiveWriter`, never blocking; only while someone
/// watches) and hands outputs to the recorder through its feed (always).
///
/// Between batches the sink applies the commands of `PipelineControl` (the recorder's begin/end of an explicit
/// recording, the radio's idle stop) and puts each recorder command's outcome into the recorder's feed right after
/// the events the command caused.
///
/// It ends when it pops `.endOfStream`, which the source pushes when it finishes or shuts down; it then hands the
/// recorder `.streamEnded` and waits for the group's shutdown, so a finished replay leaves the daemon serving STATUS.
final class PipelineService<Profile: DeviceProfile>: Service, CustomStringConvertible {
    let ring: NotificationRing
    let profile: Profile
    let forceHandle: UInt16
    let controlHandle: UInt16?
    let settings: SegmenterSettings
    /// `[device] scale` and `offset_kg`, applied to every decoded force; nil = none.
    let correction: ForceCorrection?
    let live: LiveWatchers
    /// The recorder's feed and mailbox; nil runs the pipeline without a recorder.
    let recorderFeed: RecorderFeed?
    let control: PipelineControl?
    let status: DaemonStatus
    let logger: Logger
    /// What the device state becomes after end of stream ("ended" for a replay); nil when the source owns the
    /// device state (the radio's control task publishes it), so link outputs do not set it either.
    let stateAtEnd: String?
    /// Told when efforts start or end (the radio's idle stop); nil when nobody asks.
    let activity: EffortActivity?
    /// Marks the consumer busy per wake-up, for the watchdog.
    let liveness: ThreadLiveness?
    /// How the source hands notifications over; a radio's paced notify socket is drained on this thread every
    /// batch interval while it is paced (so the D-Bus thread does not wake per batch too).
    let delivery: SourceDelivery
    /// Give back the executable's pages connecting touched, 10 s into each connection (`ExecutablePages`).
    let releasesPages: Bool

    var description: String { "PipelineService" }

    init(
        ring: NotificationRing, profile: Profile, forceHandle: UInt16, controlHandle: UInt16?,
        settings: SegmenterSettings = .init(), correction: ForceCorrection? = nil, live: LiveWatchers, recorderFeed: RecorderFeed? = nil,
        control: PipelineControl? = nil, status: DaemonStatus, stateAtEnd: String?, activity: EffortActivity? = nil,
        liveness: ThreadLiveness? = nil, delivery: SourceDelivery = .asTheyArrive, releasesPages: Bool = false,
        logger: Logger
    ) {
        self.ring = ring
        self.profile = profile
        self.forceHandle = forceHandle
        self.controlHandle = controlHandle
        self.settings = settings
        self.correction = correction
        self.live = live
        self.recorderFeed = recorderFeed
        self.control = control
        self.status = status
        self.stateAtEnd = stateAtEnd
        self.activity = activity
        self.delivery = delivery
        self.releasesPages = releasesPages
        self.liveness = liveness
        self.logger = logger
    }

    func run() async throws {
        await NamedThread.run(name: "gt-consumer") { [self] in consume() }
        try? await gracefulShutdown()
    }

    /// The consumer thread: the one consumer loop (`StreamConsumer`, one copy per profile there) into the daemon's
    /// sink, then the end of the stream.
    private func consume() {
        var processor = ForceStreamProcessor(
            profile: profile, forceHandle: forceHandle, controlHandle: controlHandle, settings: settings,
            correction: correction)
        var sink = PipelineSink(
            ring: ring, live: live, recorderFeed: recorderFeed, control: control, status: status,
            publishesLinkState: stateAtEnd != nil, activity: activity, liveness: liveness, delivery: delivery,
            releasesPages: releasesPages, logger: logger)
        logger.info("Pipeline started", metadata: ["device.profile": "\(profile.identifier)", "ring.capacity": "\(ring.capacity)"])
        delivery.drainPacing?.setOwnerWake { [ring] in ring.wakeConsumer() }
        StreamConsumer.run(ring: ring, processor: &processor, sink: &sink)
        let counters = processor.counters
        sink.finish(counters: counters, stateAtEnd: stateAtEnd)
        logger.info(
            "Pipeline ended",
            metadata: [
                "frames.total": "\(counters.total)", "frames.decoded": "\(counters.decoded)",
                "frames.malformed": "\(counters.malformed)", "ring.dropped": "\(counters.dropped)",
            ])
    }
}
