import Foundation
import GripAnalysis
import GripBlueZ
import GripStream
import GripSystem
import GripWire
import Logging

/// The daemon's sink of the consumer loop (`StreamConsumer`, run by `PipelineService`): writes the live lines to
/// watchers itself (`LiveWriter`, never blocking; only while someone watches), hands outputs to the recorder through
/// its feed (always), applies `PipelineControl`'s commands between batches and publishes counters to STATUS.
///
/// Owned by the consumer thread.
struct PipelineSink: StreamSink {
    private let ring: NotificationRing
    private let recorderFeed: RecorderFeed?
    private let control: PipelineControl?
    private let status: DaemonStatus
    private let activity: EffortActivity?
    private let liveness: ThreadLiveness?
    private let delivery: SourceDelivery
    private let releasesPages: Bool
    /// Whether link outputs set the device state (not when the source owns it: the radio's control task).
    private let publishesLinkState: Bool
    private let logger: Logger

    private var writer: LiveWriter
    private var recorderBatch = HandOffBatch<RecorderFeedEvent>()
    /// Whether anyone watched as of the last wake-up (else outputs are not passed to the writer).
    private var watching = false
    private var deviceState: String?
    private var battery: Int?
    private var effortAt: (hostMicros: Int64, open: Bool)?
    private var releasePagesAtMicros: Int64?

    init(
        ring: NotificationRing, live: LiveWatchers, recorderFeed: RecorderFeed?, control: PipelineControl?,
        status: DaemonStatus, publishesLinkState: Bool, activity: EffortActivity?, liveness: ThreadLiveness?,
        delivery: SourceDelivery, releasesPages: Bool, logger: Logger
    ) {
        self.ring = ring
        self.recorderFeed = recorderFeed
        self.control = control
        self.status = status
        self.publishesLinkState = publishesLinkState
        self.activity = activity
        self.liveness = liveness
        self.delivery = delivery
        self.releasesPages = releasesPages
        self.logger = logger
        writer = LiveWriter(watchers: live)
        if recorderFeed != nil {
            recorderBatch.micros.reserveCapacity(4096)
            recorderBatch.kilograms.reserveCapacity(4096)
            recorderBatch.events.reserveCapacity(64)
        }
    }

    mutating func willWait() -> Int64? {
        liveness?.idle(.consumer)
        return Self.earliest(delivery.drainPacing?.microsUntilDrain(), writer.microsUntilFlush())
    }

    mutating func didWake() {
        liveness?.busy(.consumer)
        // The drain pushes this batch's notifications into the ring, popped right after.
        delivery.drainPacing?.drainIfDue()
        watching = writer.refresh()
    }

    // HOT PATH: no allocation, lock, syscall or log
    mutating func consume(_ output: StreamOutput, hostMicros: Int64) {
        // A board's cells reach the replay report only: watchers, the recorder and the store see the total (issue 43).
        if case .cells = output { return }
        switch output {
        case .link(let up, let linkMicros):
            if publishesLinkState { deviceState = up ? "connected" : "disconnected" }
            if up && releasesPages { releasePagesAtMicros = linkMicros + ExecutablePages.afterConnectingMicros }
        case .segment(.effortStarted): effortAt = (hostMicros, true)
        case .segment(.effortEnded): effortAt = (hostMicros, false)
        case .device(.batteryMillivolts(let millivolts)): battery = Int(millivolts)
        default: break
        }
        if watching { writer.add(output) }
        if recorderFeed != nil {
            if case .sample(let micros, let kilograms) = output {
                recorderBatch.appendSample(micros: micros, kilograms: kilograms)
            } else {
                recorderBatch.append(.output(output))
            }
        }
    }

    mutating func endBatch<Profile: DeviceProfile>(
        _ batch: StreamBatch, processor: inout ForceStreamProcessor<Profile>
    ) {
        if let control, control.hasPending {
            for command in control.take() {
                Self.apply(command, to: &processor) { output in
                    if watching { writer.add(output) }
                    recorderBatch.append(.output(output))
                } outcome: { recorderBatch.append(.applied($0)) }
            }
        }
        // The end-of-stream batch is handed over by `finish`, after STATUS says the stream ended.
        if batch.ended { return }
        // A paced radio or replay hands notifications over in 40 ms bursts: then each burst is one batched line.
        writer.endBatch(perBurst: delivery.arrivesInBursts)
        if !(recorderFeed?.offer(&recorderBatch) ?? true) {
            // The recorder held the hand-off's lock (a thread preempted inside `take`). The batch is kept, but
            // with an idle ring `waitForData` would sleep on it, and a command's outcome (the reply to RECORD)
            // would wait for the device's next notification: ask for an immediate wake-up and try again.
            ring.wakeConsumer()
            sched_yield()
        }
        if let due = releasePagesAtMicros, batch.latestHostMicros >= due {
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
        let counters = batch.counters
        let state = deviceState
        status.tryPublish { snapshot in
            snapshot.frames = counters
            snapshot.ringDropped = counters.dropped
            if let state { snapshot.deviceState = state }
        }
    }

    /// After the loop returned: STATUS says the stream ended (with `stateAtEnd` as the device state, when given),
    /// the watchers get what is pending and the recorder its last batch and `.streamEnded`.
    mutating func finish(counters: FrameCounters, stateAtEnd: String?) {
        let oversized = ring.oversized
        status.update { snapshot in
            snapshot.frames = counters
            snapshot.ringDropped = counters.dropped
            snapshot.ringOversized = oversized
            if let stateAtEnd { snapshot.deviceState = stateAtEnd }
        }
        writer.finish()
        if let recorderFeed {
            recorderBatch.append(.streamEnded)
            while !recorderFeed.offer(&recorderBatch) { sched_yield() }
        }
    }

    /// The sooner of two optional timeouts (nil: none).
    private static func earliest(_ first: Int64?, _ second: Int64?) -> Int64? {
        guard let first else { return second }
        guard let second else { return first }
        return min(first, second)
    }

    /// Applies one recorder command to the processor; its events go to `output`, then its outcome to `outcome`.
    private static func apply<Profile: DeviceProfile>(
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
