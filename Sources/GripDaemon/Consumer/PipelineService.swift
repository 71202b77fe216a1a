import Foundation
import GripAnalysis
import GripBlueZ
import GripStream
import GripSystem
import GripWire
import Logging
import ServiceLifecycle

/// The consumer loop as a service: waits on the ring, decodes and segments every batch, publishes counters to
/// STATUS, writes the live lines to watchers itself (`LiveWriter`, never blocking; only while someone watches) and
/// hands outputs to the recorder through its feed (always).
///
/// Between batches it applies the commands of `PipelineControl` (the recorder's begin/end of an explicit recording,
/// the radio's idle stop) and puts each recorder command's outcome into the recorder's feed right after the events
/// the command caused.
///
/// It ends when it pops `.endOfStream`, which the source pushes when it finishes or shuts down; it then hands the
/// recorder `.streamEnded` and waits for the group's shutdown, so a finished replay leaves the daemon serving STATUS.
final class PipelineService<Profile: DeviceProfile>: Service, CustomStringConvertible {
    let ring: NotificationRing
    let profile: Profile
    let forceHandle: UInt16
    let controlHandle: UInt16?
    let settings: SegmenterSettings
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
    /// The radio's paced notify socket, drained on this thread every batch interval while it is paced (so the
    /// D-Bus thread does not wake per batch too); nil without a radio.
    let pacing: NotificationPacing?
    /// Give back the executable's pages connecting touched, 10 s into each connection (`ExecutablePages`).
    let releasesPages: Bool

    var description: String { "PipelineService" }

    init(
        ring: NotificationRing, profile: Profile, forceHandle: UInt16, controlHandle: UInt16?,
        settings: SegmenterSettings = .init(), live: LiveWatchers, recorderFeed: RecorderFeed? = nil,
        control: PipelineControl? = nil, status: DaemonStatus, stateAtEnd: String?, activity: EffortActivity? = nil,
        liveness: ThreadLiveness? = nil, pacing: NotificationPacing? = nil, releasesPages: Bool = false,
        logger: Logger
    ) {
        self.ring = ring
        self.profile = profile
        self.forceHandle = forceHandle
        self.controlHandle = controlHandle
        self.settings = settings
        self.live = live
        self.recorderFeed = recorderFeed
        self.control = control
        self.status = status
        self.stateAtEnd = stateAtEnd
        self.activity = activity
        self.pacing = pacing
        self.releasesPages = releasesPages
        self.liveness = liveness
        self.logger = logger
    }

    func run() async throws {
        await NamedThread.run(name: "gt-consumer") { [self] in consume() }
        try? await gracefulShutdown()
    }

    // One copy of the loop per profile: in the generic one, every call into the processor for a ring entry asked the
    // runtime for `ForceStreamProcessor<Profile>`'s metadata, a hash-table lookup per sample (Benchmarks/README.md,
    // "Live path: instructions per wake-up"). The generic body stays, and still serves a profile not listed here.
    @_specialize(exported: false, where Profile == TindeqProgressor)
    @_specialize(exported: false, where Profile == PitchSixForceBoard)
    @_specialize(exported: false, where Profile == Entralpi)
    @_specialize(exported: false, where Profile == WeightScale)
    @_specialize(exported: false, where Profile == WeihengWHC06)
    @_specialize(exported: false, where Profile == FrezDyno)
    private func consume() {
        var processor = ForceStreamProcessor(
            profile: profile, forceHandle: forceHandle, controlHandle: controlHandle, settings: settings)
        var writer = LiveWriter(watchers: live)
        let recording = recorderFeed != nil
        var recorderBatch = HandOffBatch<RecorderFeedEvent>()
        if recording {
            recorderBatch.micros.reserveCapacity(4096)
            recorderBatch.kilograms.reserveCapacity(4096)
            recorderBatch.events.reserveCapacity(64)
        }
        var deviceState: String?
        let publishesLinkState = stateAtEnd != nil
        var battery: Int?
        var effortAt: (hostMicros: Int64, open: Bool)?
        var latestHostMicros = Int64.min
        var releasePagesAtMicros: Int64?
        var knownDrops = 0
        var finished = false
        logger.info("Pipeline started", metadata: ["device.profile": "\(profile.identifier)", "ring.capacity": "\(ring.capacity)"])
        if let pacing { pacing.setOwnerWake { [ring] in ring.wakeConsumer() } }
        while !finished {
            liveness?.idle(.consumer)
            ring.waitForData(timeoutMicros: Self.earliest(pacing?.microsUntilDrain(), writer.microsUntilFlush()))
            liveness?.busy(.consumer)
            // The drain pushes this batch's notifications into the ring, popped just below.
            pacing?.drainIfDue()
            let watching = writer.refresh()
            _ = ring.popBatch(max: 256) { entry in
                if entry.kind == .endOfStream { finished = true }
                latestHostMicros = entry.hostMicros
                processor.process(
                    kind: entry.kind, handle: entry.handle, hostMicros: entry.hostMicros, value: entry.value
                ) { output in
                    switch output {
                    case .link(let up, let hostMicros):
                        if publishesLinkState { deviceState = up ? "connected" : "disconnected" }
                        if up && releasesPages { releasePagesAtMicros = hostMicros + ExecutablePages.afterConnectingMicros }
                    case .segment(.effortStarted): effortAt = (entry.hostMicros, true)
                    case .segment(.effortEnded): effortAt = (entry.hostMicros, false)
                    case .device(.batteryMillivolts(let millivolts)): battery = Int(millivolts)
                    default: break
                    }
                    if watching { writer.add(output) }
                    if recording {
                        if case .sample(let micros, let kilograms) = output {
                            recorderBatch.appendSample(micros: micros, kilograms: kilograms)
                        } else {
                            recorderBatch.append(.output(output))
                        }
                    }
                }
            }
            if let control, control.hasPending {
                for command in control.take() {
                    apply(command, to: &processor) { output in
                        if watching { writer.add(output) }
                        recorderBatch.append(.output(output))
                    } outcome: { recorderBatch.append(.applied($0)) }
                }
            }
            let drops = ring.dropped
            if drops != knownDrops {
                processor.countDropped(drops - knownDrops)
                knownDrops = drops
            }
            // The end-of-stream batch is handed over below, after STATUS says the stream ended.
            if finished { break }
            // A paced radio hands notifications over in 40 ms bursts: then each burst is one batched SAMPLES line.
            writer.endBatch(perBurst: pacing?.isDraining == true)
            if !(recorderFeed?.offer(&recorderBatch) ?? true) {
                // The recorder held the hand-off's lock (a thread preempted inside `take`). The batch is kept, but
                // with an idle ring `waitForData` would sleep on it, and a command's outcome (the reply to RECORD)
                // would wait for the device's next notification: ask for an immediate wake-up and try again.
                ring.wakeConsumer()
                sched_yield()
            }
            if let due = releasePagesAtMicros, latestHostMicros >= due {
                // Once per connection (a read of /proc/self/maps, an madvise over the executable and a log line), not per frame: the
                // kernel queues the notifications that arrive meanwhile, and the ring holds what was read.
                releasePagesAtMicros = nil
                let advised = ExecutablePages.release()
                logger.debug("Gave back the executable's pages", metadata: ["bytes": "\(advised ?? 0)"])
            }
            if let at = effortAt {
                activity?.noteEffort(atHostMicros: at.hostMicros, open: at.open)
                effortAt = nil
            }
            if let millivolts = battery {
                // Rare (one command response every few minutes), so a log line here is not per frame.
                logger.info("Device battery", metadata: ["device.batteryMillivolts": "\(millivolts)"])
                status.update { $0.batteryMillivolts = millivolts }
                battery = nil
            }
            let counters = processor.counters
            let state = deviceState
            status.tryPublish { snapshot in
                snapshot.frames = counters
                snapshot.ringDropped = drops
                if let state { snapshot.deviceState = state }
            }
        }
        let counters = processor.counters
        let oversized = ring.oversized
        let end = stateAtEnd
        status.update { snapshot in
            snapshot.frames = counters
            snapshot.ringDropped = knownDrops
            snapshot.ringOversized = oversized
            if let end { snapshot.deviceState = end }
        }
        writer.finish()
        if let recorderFeed {
            recorderBatch.append(.streamEnded)
            while !recorderFeed.offer(&recorderBatch) { sched_yield() }
        }
        logger.info(
            "Pipeline ended",
            metadata: [
                "frames.total": "\(counters.total)", "frames.decoded": "\(counters.decoded)",
                "frames.malformed": "\(counters.malformed)", "ring.dropped": "\(knownDrops)",
            ])
    }

    /// The sooner of two optional timeouts (nil: none).
    private static func earliest(_ first: Int64?, _ second: Int64?) -> Int64? {
        guard let first else { return second }
        guard let second else { return first }
        return min(first, second)
    }

    /// Applies one recorder command to the processor; its events go to `output`, then its outcome to `outcome`.
    private func apply(
        _ command: PipelineCommand, to processor: inout ForceStreamProcessor<Profile>, output: (StreamOutput) -> Void,
        outcome: (PipelineCommandOutcome) -> Void
    ) {
        switch command {
        case .beginRecording(let token):
            let adopted = processor.beginRecording(output: output)
            outcome(.began(token: token, adopted: adopted))
        case .endRecording(let token):
            processor.endRecording(output: output)
            outcome(.ended(token: token))
        case .measurementStoppedIdle:
            processor.endAutomaticRecording(output: output)
        }
    }
}
