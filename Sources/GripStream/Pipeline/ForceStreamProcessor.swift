import GripAnalysis
import GripWire

/// What the pipeline tells its sinks, in stream order.
public enum StreamOutput: Sendable, Equatable {
    /// A decoded sample on the unwrapped stream timeline (µs).
    case sample(micros: Int64, kilograms: Float)
    /// An effort or recording opened or closed.
    case segment(SegmentEvent)
    /// The load cells of the `.sample` just before, for a device with several (the Motherboard's left, centre, right).
    case cells(CellForces)
    /// The device said something other than a sample (battery, version, low power, …).
    case device(DeviceEvent)
    /// The link to the device came up or went down (host µs).
    case link(up: Bool, hostMicros: Int64)
}

/// The consumer side of the hot path for one device: decode → device clock → effort segmenter.
///
/// One value per device stream; it is fed ring entries in order and never touches I/O, so the same code runs
/// for the radio, for replays and in tests.
public struct ForceStreamProcessor<Profile: DeviceProfile>: Sendable {
    // Stored properties whose size depends on `Profile` come last: the ones before them then sit at fixed offsets,
    // so the per-sample closure in `decodeFrame` reaches `clock` and `segmenter` directly instead of asking the
    // runtime for this type's metadata (a hash-table lookup) on every sample of an unspecialized pipeline.

    /// The handle that carries force frames; notifications on other handles count as `wrong_handle`.
    public var forceHandle: UInt16
    /// The control point's handle, when known, so captured START commands restart the device clock.
    public var controlHandle: UInt16?
    public private(set) var counters = FrameCounters()
    public private(set) var clock = DeviceClock()
    /// Time of the last decoded sample on the stream timeline (µs); `nil` before the first one of a stream.
    public private(set) var lastSampleMicros: Int64?
    /// An explicit recording was asked for before any sample: it starts at the next sample.
    public private(set) var explicitStartPending = false
    /// A person's own correction of this sensor (`[device] scale`, `offset_kg`), applied to every decoded force
    /// before anything else sees it; nil = the readings as decoded.
    public let correction: ForceCorrection?
    private var segmenter: EffortSegmenter
    public let profile: Profile
    private var decoder: Profile.Decoder

    /// Reports the device numbered and the host never received, for a device that numbers them (the Motherboard).
    public var lostReports: Int? { decoder.lostReports }

    public init(
        profile: Profile, forceHandle: UInt16, controlHandle: UInt16?, settings: SegmenterSettings = .init(),
        correction: ForceCorrection? = nil
    ) {
        self.profile = profile
        self.correction = correction
        self.forceHandle = forceHandle
        self.controlHandle = controlHandle
        decoder = profile.makeDecoder()
        segmenter = EffortSegmenter(settings: settings)
    }

    /// Handles one ring entry.
    /// - Important: HOT PATH for notifications: no allocation, lock, syscall or log.
    public mutating func process(
        kind: RingEntryKind, handle: UInt16, hostMicros: Int64, value: UnsafeRawBufferPointer,
        output: (StreamOutput) -> Void
    ) {
        switch kind {
        case .notification:
            guard handle == forceHandle else {
                counters.countRejection(.wrongHandle)
                return
            }
            unsafe decodeFrame(value, hostMicros: hostMicros, output: output)
        case .write:
            guard handle == controlHandle, let command = unsafe profile.command(fromControlWrite: value) else { return }
            decoder.noteCommandSent(command)
            // Device time restarts at every START (docs/devices.md §2).
            if command == .startMeasurement { clock.startNewEpoch() }
        case .connected:
            output(.link(up: true, hostMicros: hostMicros))
        case .disconnected:
            segmenter.interruption { output(.segment($0)) }
            clock.startNewEpoch()
            output(.link(up: false, hostMicros: hostMicros))
        case .endOfStream:
            segmenter.endOfStream { output(.segment($0)) }
            explicitStartPending = false
            lastSampleMicros = nil
        }
    }

    /// Whether a recording is open (or an explicit one waits for its first sample).
    public var isRecording: Bool { segmenter.isRecording || explicitStartPending }

    /// Opens an explicit recording at the last sample (`griptrack record`); see
    /// `EffortSegmenter.beginRecording(atMicros:emit:)`. Before the stream's first sample it opens at that sample.
    ///
    /// - Parameter output: Receives `recordingStarted` when a new recording opens (now, or with the next sample).
    /// - Returns: `true` if a recording was already open (it became explicit and nothing is emitted).
    @discardableResult
    public mutating func beginRecording(output: (StreamOutput) -> Void) -> Bool {
        if explicitStartPending { return true }
        if segmenter.isRecording {
            // Already open: it becomes explicit and keeps its start (nothing is emitted).
            segmenter.beginRecording(atMicros: lastSampleMicros ?? 0) { output(.segment($0)) }
            return true
        }
        guard let last = lastSampleMicros else {
            explicitStartPending = true
            return false
        }
        segmenter.beginRecording(atMicros: last) { output(.segment($0)) }
        return false
    }

    /// Records notifications the producer could not enqueue.
    public mutating func countDropped(_ count: Int) { counters.addDropped(count) }

    /// Ends the current recording now (explicit stop); also cancels an explicit start still waiting for a sample.
    ///
    /// - Parameter output: Receives the closing events (`effortEnded`, `recordingEnded`).
    /// - Returns: Whether a recording was open (or waiting for its first sample).
    @discardableResult
    public mutating func endRecording(output: (StreamOutput) -> Void) -> Bool {
        let wasRecording = isRecording
        explicitStartPending = false
        segmenter.endRecording { output(.segment($0)) }
        return wasRecording
    }

    /// Ends an open automatic recording now; an explicit one (or one waiting for its first sample) stays open.
    /// See `EffortSegmenter.endAutomaticRecording(emit:)`.
    ///
    /// - Parameter output: Receives the closing events (`effortEnded`, `recordingEnded`).
    public mutating func endAutomaticRecording(output: (StreamOutput) -> Void) {
        segmenter.endAutomaticRecording { output(.segment($0)) }
    }

    private mutating func decodeFrame(_ value: UnsafeRawBufferPointer, hostMicros: Int64, output: (StreamOutput) -> Void) {
        // The decoder is moved out for the call so the closure may mutate the rest of `self` (exclusive access).
        // It holds no heap storage, so the copy costs nothing; the segmenter's buffers are never copied.
        var decoder = self.decoder
        var timeJumped = false
        let correction = self.correction
        let outcome = unsafe decoder.decode(value, hostMicros: hostMicros) { decoded in
            guard let micros = clock.placeChecked(decoded.deviceMicros, hostMicros: hostMicros) else {
                timeJumped = true
                return
            }
            let sample = correction.map { decoded.corrected(by: $0) } ?? decoded
            output(.sample(micros: micros, kilograms: sample.kilograms))
            if let cells = sample.cells { output(.cells(cells)) }
            lastSampleMicros = micros
            if explicitStartPending {
                explicitStartPending = false
                segmenter.beginRecording(atMicros: micros) { output(.segment($0)) }
            }
            segmenter.ingest(micros: micros, kilograms: sample.kilograms) { output(.segment($0)) }
        }
        self.decoder = decoder
        switch outcome {
        case .samples where timeJumped:
            // Counted once per frame, so `total` stays decoded + malformed; its other samples went through.
            counters.countRejection(.timeJump)
        case .samples, .consumed:
            counters.countDecoded()
        case .event(let event):
            counters.countDecoded()
            output(.device(event))
        case .rejected(let reason):
            counters.countRejection(reason)
        }
    }
}
