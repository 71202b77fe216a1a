import Foundation
import GripAnalysis
import GripSystem
import GripWire

/// How fast a capture is fed into the pipeline.
public enum ReplaySpeed: Sendable, Equatable {
    /// As fast as the pipeline drains the ring.
    case max
    /// Capture time divided by this factor (1 = realtime).
    case factor(Double)
}

/// Options of one replay.
public struct ReplayOptions: Sendable {
    public var speed: ReplaySpeed = .max
    /// Force-characteristic handle to use instead of the one from discovery or content.
    public var handle: UInt16?
    public var settings = SegmenterSettings()
    /// The Frez Dyno's calibration coefficient (kg per ADC count), for a capture of one.
    public var calibration: Double?

    public init(
        speed: ReplaySpeed = .max, handle: UInt16? = nil, settings: SegmenterSettings = .init(), calibration: Double? = nil
    ) {
        self.speed = speed
        self.handle = handle
        self.settings = settings
        self.calibration = calibration
    }
}

/// Why a replay could not run at all.
public enum ReplayError: Error, CustomStringConvertible, Sendable {
    /// The capture could not be read before a single record (missing file, bad header).
    case unreadable(CaptureError)
    /// No handle in the capture carries frames of a supported device: on none did a profile's decoder take
    /// `ForceHandleChooser.minimumDecodedShare` of the notifications; `trials` says what each profile made of each
    /// handle (of the `--handle` one only, when given).
    case noForceHandle(notifyingHandles: [UInt16], hasDiscovery: Bool, trials: [HandleTrials])
    /// The capture is from a device whose forces need a calibration coefficient that was not given.
    case needsCalibration(device: String)

    public var description: String {
        switch self {
        case .unreadable(let error):
            return "cannot replay the capture: \(error)"
        case .needsCalibration(let device):
            return "the capture is from a \(device), whose raw ADC counts need its calibration coefficient: pass "
                + "--calibration <kg per count> (the Frez app shows it)"
        case .noForceHandle(let handles, _, _) where handles.isEmpty:
            return "the capture holds no notifications, so there is nothing to replay"
        case .noForceHandle(let handles, let hasDiscovery, let trials):
            let list = handles.map { hex($0) }.joined(separator: ", ")
            let discovery = hasDiscovery
                ? "its GATT discovery shows no supported force device"
                : "it has no GATT discovery to identify the force characteristic"
            let share = Int((ForceHandleChooser.minimumDecodedShare * 100).rounded())
            let tried = trials.isEmpty
                ? "the handle given sent no notifications"
                : trials.map { handle in
                    "on \(hex(handle.handle)) (\(handle.notifications) notifications) "
                        + handle.trials.map(\.summary).joined(separator: ", ")
                }.joined(separator: "; ")
            return "no notifying handle (\(list)) carries frames of a supported device and \(discovery); "
                + "a profile is chosen when its decoder takes at least \(share) % of a handle's notifications, and "
                + "none did (\(tried)); if this is a force device, pass --handle 0xNNNN to choose one"
        }
    }
}

/// Replays a btsnoop capture through the same ring and consumer loop the daemon uses (`StreamConsumer`): a producer
/// thread reads the file and pushes every event into the ring (waiting when it is full, as a replay may), and the
/// calling thread consumes, decodes and segments, handing every output to the caller's sink.
public enum CaptureReplay {
    /// Replays the capture at `path` into `sink`.
    ///
    /// The host time the sink gets with each output is that of the capture record whose ring entry produced it
    /// (Unix µs, as btsnoop stamps it): a `.sample`'s is when the host received its notification, so a recorder can
    /// give a stored recording the wall-clock start of its first sample. Outputs produced at the end of the capture
    /// (the last recording closing) carry 0.
    /// - Returns: what the replay used and counted; a damaged capture still yields it, with `capture.error` set,
    ///   after every record before the damage went through the pipeline.
    /// - Throws: `ReplayError` when nothing could be replayed.
    public static func run<Sink: StreamSink>(
        path: String, options: ReplayOptions = .init(), sink: inout Sink
    ) throws(ReplayError) -> ReplayOutcome {
        let ring = NotificationRing(capacityPowerOfTwo: 4096)
        let verdict = ProducerVerdict()
        NamedThread.start(name: "gt-capture") {
            feed(path: path, option: options.handle, into: ring, speed: options.speed, verdict: verdict)
        }

        // The producer publishes its choice before it pushes the first entry, so the ring's hand-off orders the
        // two: once an entry is there, `verdict.choice` is final. Without a choice the only entry is the end.
        ring.waitForData()
        guard let choice = verdict.choice else {
            throw verdict.failure ?? .noForceHandle(notifyingHandles: [], hasDiscovery: false, trials: [])
        }
        let profile = choice.profile.calibrated(options.calibration)
        let (counters, clock, lostReports) = consume(
            ring: ring, profile: profile, choice: choice, settings: options.settings, sink: &sink)
        // Read to the end all the same, so the reader thread finishes; without a coefficient nothing decoded.
        guard !profile.lacksCalibration else { throw .needsCalibration(device: profile.name) }
        return ReplayOutcome(
            profile: profile, forceHandle: choice.handle, source: choice.source, counters: counters, clock: clock,
            lostReports: lostReports, capture: verdict.outcome)
    }

    /// The consumer, once the profile is known: `StreamConsumer` (one copy per profile there) until the end of
    /// stream.
    private static func consume<Profile: DeviceProfile, Sink: StreamSink>(
        ring: NotificationRing, profile: Profile, choice: ForceHandleChoice, settings: SegmenterSettings,
        sink: inout Sink
    ) -> (FrameCounters, DeviceClock, Int?) {
        var processor = ForceStreamProcessor(
            profile: profile, forceHandle: choice.handle, controlHandle: choice.controlHandle, settings: settings)
        StreamConsumer.run(ring: ring, processor: &processor, sink: &sink)
        return (processor.counters, processor.clock, processor.lostReports)
    }

    /// The producer: reads the file once, choosing the force handle on the way (events are held back until the
    /// choice is certain), pushes every event, pacing by capture time when asked, and always ends with an
    /// end-of-stream entry.
    private static func feed(
        path: String, option: UInt16?, into ring: NotificationRing, speed: ReplaySpeed, verdict: ProducerVerdict
    ) {
        // The producer's state is one struct that the two closures below capture (both non-escaping): local
        // variables captured by nested functions were boxed, with a dynamic exclusivity check on every access of
        // every event (swift_beginAccess in a profile of a long replay).
        var producer = ReplayProducer(option: option, ring: ring, speed: speed, verdict: verdict)
        // Borrowed events: a notification's bytes go straight from the read buffer into a ring slot, with no
        // array per notification (one per event used to be most of the replay's allocations).
        let outcome = unsafe CaptureFile.readToEndBorrowing(
            path: path,
            afterChunk: { gatt in producer.chooseIfCertain(gatt: gatt) },
            // SAFETY: the event's value is used only inside `accept`, during this call (see there).
            emit: { event in unsafe producer.accept(event) })
        producer.finish(outcome)
    }
}

/// The replay's producer thread: holds events back until the force handle is chosen, then pushes them into the
/// ring, pacing by capture time when asked.
private struct ReplayProducer {
    private var pacer: Pacer
    private var chooser: ForceHandleChooser
    private let ring: NotificationRing
    private let verdict: ProducerVerdict
    private var held: [RingInput] = []
    private var chosen = false
    /// The advertising device's link, when the force comes in advertisements; nil for a connected device.
    private var advertisedLink: AdvertisementSilence?

    init(option: UInt16?, ring: NotificationRing, speed: ReplaySpeed, verdict: ProducerVerdict) {
        pacer = Pacer(speed: speed)
        chooser = ForceHandleChooser(option: option)
        self.ring = ring
        self.verdict = verdict
    }

    /// One event of the capture, in file order.
    mutating func accept(_ event: BorrowedCaptureEvent) {
        // SAFETY: the event's value is used only inside this call: copied into a ring slot by `push`, read by
        // `observeNotification`, or copied into an array for `held`.
        unsafe RingInput.withFields(of: event) { kind, handle, micros, value in
            if chosen {
                unsafe push(kind, handle, micros, value)
            } else {
                if kind == .notification {
                    unsafe chooser.observeNotification(handle: handle, hostMicros: micros, value: value)
                }
                unsafe held.append(RingInput(kind: kind, handle: handle, hostMicros: micros, value: Array(value)))
            }
        }
    }

    /// After each chunk of the file: chooses as soon as the choice is certain.
    mutating func chooseIfCertain(gatt: GATTDatabase) {
        if !chosen { choose(chooser.certainChoice(gatt: gatt)) }
    }

    /// The end of the capture: the final choice (or the reason there is none), then the end-of-stream entry.
    mutating func finish(_ outcome: CaptureReadOutcome) {
        if !chosen {
            choose(chooser.finalChoice(gatt: outcome.summary.gatt))
            if !chosen {
                verdict.failure = outcome.error.flatMap { chooser.sawNotifications ? nil : .unreadable($0) }
                    ?? .noForceHandle(
                        notifyingHandles: chooser.notifyingHandles, hasDiscovery: !outcome.summary.gatt.isEmpty,
                        trials: chooser.refusalTrials)
            }
        }
        verdict.outcome = outcome
        // SAFETY: an empty buffer; nothing is read from it.
        _ = unsafe ring.pushWaiting(
            kind: .endOfStream, handle: 0, hostMicros: 0, value: UnsafeRawBufferPointer(start: nil, count: 0))
    }

    private mutating func push(
        _ kind: RingEntryKind, _ handle: UInt16, _ hostMicros: Int64, _ value: UnsafeRawBufferPointer
    ) {
        pacer.wait(untilCaptureMicros: hostMicros)
        if kind == .notification, handle == AdvertisementChannel.handle,
           let change = advertisedLink?.advertisement(at: hostMicros) {
            pushLinkChange(change, at: hostMicros)
        }
        // SAFETY: `value` is only read by `pushWaiting`, which copies it into a slot before returning.
        _ = unsafe ring.pushWaiting(kind: kind, handle: handle, hostMicros: hostMicros, value: value)
    }

    /// An advertising device's link, as the daemon's advertisement source pushes it: up before the first data, and a
    /// silence longer than the device's ends the link where it ran out (closing the effort under way open).
    private func pushLinkChange(_ change: AdvertisementSilence.Change, at hostMicros: Int64) {
        // SAFETY: an empty buffer; nothing is read from it.
        let empty = unsafe UnsafeRawBufferPointer(start: nil, count: 0)
        switch change {
        case .none:
            return
        case .up:
            // SAFETY: `empty` holds no bytes to read.
            _ = unsafe ring.pushWaiting(kind: .connected, handle: 0, hostMicros: hostMicros, value: empty)
        case .downAndUp(let downAtMicros):
            // SAFETY: as above.
            _ = unsafe ring.pushWaiting(kind: .disconnected, handle: 0, hostMicros: downAtMicros, value: empty)
            _ = unsafe ring.pushWaiting(kind: .connected, handle: 0, hostMicros: hostMicros, value: empty)
        }
    }

    /// Publishes the choice (before the first push, so the consumer sees it once it pops an entry) and pushes the
    /// events held back so far.
    private mutating func choose(_ choice: ForceHandleChoice?) {
        guard let choice else { return }
        verdict.choice = choice
        chosen = true
        if choice.profile.transport == .advertisement && choice.handle == AdvertisementChannel.handle {
            advertisedLink = AdvertisementSilence()
        }
        let entries = held
        held = []
        for entry in entries {
            // SAFETY: the buffer is the held array's storage, only read by `push` during the closure.
            unsafe entry.value.withUnsafeBytes { unsafe push(entry.kind, entry.handle, entry.hostMicros, $0) }
        }
    }
}

/// What the producer tells the consumer: the force handle it chose (before its first push), and how reading the
/// capture ended (before the end-of-stream entry).
private final class ProducerVerdict: @unchecked Sendable {
    // SAFETY: every stored property is only read or written while holding `lock`.
    private let lock = NSLock()
    private var storedChoice: ForceHandleChoice?
    private var storedFailure: ReplayError?
    private var storedOutcome: CaptureReadOutcome?

    var choice: ForceHandleChoice? {
        get { lock.withLock { storedChoice } }
        set { lock.withLock { storedChoice = newValue } }
    }
    var failure: ReplayError? {
        get { lock.withLock { storedFailure } }
        set { lock.withLock { storedFailure = newValue } }
    }
    var outcome: CaptureReadOutcome? {
        get { lock.withLock { storedOutcome } }
        set { lock.withLock { storedOutcome = newValue } }
    }
}

/// A capture event flattened to what a ring slot holds.
package struct RingInput {
    package var kind: RingEntryKind
    package var handle: UInt16
    package var hostMicros: Int64
    package var value: [UInt8]

    /// Nil for events the pipeline has no use for (MTU exchange, adverts of no advertising device in the table).
    /// An advertising device's manufacturer data becomes a notification on ``AdvertisementChannel/handle``.
    package init?(_ event: CaptureEvent) {
        switch event {
        case .connected(_, _, let micros):
            self = .init(kind: .connected, handle: 0, hostMicros: micros, value: [])
        case .disconnected(_, let reason, let micros):
            self = .init(kind: .disconnected, handle: 0, hostMicros: micros, value: [reason])
        case .mtuExchanged:
            return nil
        case .notification(_, let handle, let value, let micros):
            self = .init(kind: .notification, handle: handle, hostMicros: micros, value: value)
        case .write(_, let handle, let value, let micros):
            self = .init(kind: .write, handle: handle, hostMicros: micros, value: value)
        case .advertisement(_, _, let company, let data, let micros):
            guard DeviceProfiles.advertisingManufacturers.contains(company) else { return nil }
            self = .init(kind: .notification, handle: AdvertisementChannel.handle, hostMicros: micros, value: data)
        }
    }

    /// Calls `body` with the ring fields of a borrowed event, without copying its value; does nothing for events
    /// the pipeline has no use for, as ``init(_:)`` returns nil for them.
    ///
    /// - Important: the buffer given to `body` is valid only during the call.
    package static func withFields(
        of event: BorrowedCaptureEvent,
        _ body: (RingEntryKind, _ handle: UInt16, _ hostMicros: Int64, UnsafeRawBufferPointer) -> Void
    ) {
        switch unsafe event {
        case .connected(_, _, let micros):
            unsafe body(.connected, 0, micros, UnsafeRawBufferPointer(start: nil, count: 0))
        case .disconnected(_, let reason, let micros):
            // SAFETY: the buffer addresses `reason`, alive for the whole closure.
            unsafe withUnsafeBytes(of: reason) { unsafe body(.disconnected, 0, micros, $0) }
        case .mtuExchanged:
            return
        case .notification(_, let handle, let value, let micros):
            unsafe body(.notification, handle, micros, value)
        case .write(_, let handle, let value, let micros):
            unsafe body(.write, handle, micros, value)
        case .advertisement(_, _, let company, let data, let micros):
            guard DeviceProfiles.advertisingManufacturers.contains(company) else { return }
            unsafe body(.notification, AdvertisementChannel.handle, micros, data)
        }
    }

    package init(kind: RingEntryKind, handle: UInt16, hostMicros: Int64, value: [UInt8]) {
        self.kind = kind
        self.handle = handle
        self.hostMicros = hostMicros
        self.value = value
    }
}

/// Sleeps the producer so capture time advances at `speed` × wall time.
package struct Pacer {
    private let factor: Double?
    private var origin: (capture: Int64, wall: UInt64)?

    package init(speed: ReplaySpeed) {
        if case .factor(let value) = speed, value > 0 { factor = value } else { factor = nil }
    }

    /// Whether it waits at all (not at full speed).
    package var isPaced: Bool { factor != nil }

    /// Sleeps until the event at capture time `micros` is due.
    /// - Parameters:
    ///   - burstNanos: when given, the event is due at the next multiple of it (wall time since the first event)
    ///     at or after its own time, so the events due within one interval are pushed together, as a radio drained
    ///     every interval hands them over.
    ///   - beforeSleeping: called when the event is not due yet, before the sleep (the end of a burst).
    package mutating func wait(
        untilCaptureMicros micros: Int64, burstNanos: UInt64? = nil, beforeSleeping: () -> Void = {}
    ) {
        guard let factor else { return }
        let now = DispatchTime.now().uptimeNanoseconds
        guard let origin else {
            origin = (micros, now)
            return
        }
        let due = origin.wall
            + Self.dueNanos(afterCaptureMicros: micros - origin.capture, factor: factor, burstNanos: burstNanos)
        guard due > now else { return }
        beforeSleeping()
        Thread.sleep(forTimeInterval: Double(due - now) / 1e9)
    }

    /// When an event is due, in wall nanoseconds after the first: its capture time since the first divided by
    /// `factor`, rounded up to a multiple of `burstNanos` when given.
    package static func dueNanos(afterCaptureMicros micros: Int64, factor: Double, burstNanos: UInt64?) -> UInt64 {
        let nanos = UInt64(max(0, Double(micros) * 1000 / factor))
        guard let burstNanos, burstNanos > 0 else { return nanos }
        return (nanos + burstNanos - 1) / burstNanos * burstNanos
    }
}

/// A handle as `0x000e`: in messages and in the replay report.
package func hex(_ handle: UInt16) -> String {
    let digits = String(handle, radix: 16)
    return "0x" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
}
