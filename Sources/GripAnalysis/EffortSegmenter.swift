/// Cuts a force stream into efforts and recordings (the rules and why: `docs/segmentation.md`).
///
/// Feed samples in stream-time order with ``ingest(micros:kilograms:emit:)``; the segmenter reports
/// ``SegmentEvent``s through the `emit` callback as soon as they are known. It is a pure value: it reads no
/// clock (time is the samples' stream microseconds from ``DeviceClock``), does no I/O and keeps no globals.
///
/// **Baseline.** A stream starts with the baseline at ``SegmenterSettings/baselinePriorKg`` (0 kg: the device
/// was tared). Evidence at rest overrides it: once an idle run is ``SegmenterSettings/baselineSettleMicros``
/// long, the baseline is the median of its samples of the last ``SegmenterSettings/baselineWindowMicros``
/// (1.5 s), so it follows a constant pre-load (≈ 5 kg) and slow drift but ignores the short rising edge of a
/// pull. It is frozen during an effort, and after an effort (or an interruption) it stays frozen until the idle
/// run has settled again, so the release tail cannot lift it.
///
/// **A stream that starts loaded** (first sample at or above prior + off-level) is an effort already under way,
/// open at its start — unless the stream shows that load at rest: force within ``SegmenterSettings/restBandKg``
/// for ``SegmenterSettings/restEvidenceMicros`` at the lowest level seen so far. Then that level is a pre-load,
/// becomes the baseline, and the samples so far are segmented again against it. Until one or the other is
/// known (force falls below prior + off-level, the rest evidence, or the stream ends), nothing is emitted.
///
/// **Efforts.** A candidate starts when force reaches baseline + ``SegmenterSettings/onAboveBaseline`` and ends
/// when it falls below baseline + ``SegmenterSettings/offAboveBaseline`` (hysteresis); both crossing times are
/// linearly interpolated between samples. A candidate is accepted once it has lasted
/// ``SegmenterSettings/minimumDurationMicros`` and peaked at least
/// ``SegmenterSettings/minimumPeakAboveBaseline`` above the baseline, or — an explosive pull — lasted
/// ``SegmenterSettings/shortEffortMinimumDurationMicros`` and peaked at least
/// ``SegmenterSettings/shortEffortMinimumPeakAboveBaseline`` above it; otherwise it is chatter or a false start
/// and nothing is reported. The effort's trace starts at its rising edge: the last idle sample at or below the
/// baseline within ``SegmenterSettings/risingEdgeLookbackMicros`` before the on-crossing (or the oldest idle
/// sample of the current idle run in that span), so RFD 20–80 % finds t20 below the on-level, also on a pre-load.
///
/// **Recordings.** An automatic recording starts with its first accepted effort (start = effort start −
/// pre-roll, clamped to the first sample seen since the previous recording ended) and ends when no effort
/// started for ``SegmenterSettings/sessionGapMicros`` after the last effort's end (end = last effort end +
/// post-roll, clamped to the last sample), at ``endOfStream(emit:)``, ``endRecording(emit:)`` or
/// ``endAutomaticRecording(emit:)``. When it
/// closes, efforts whose peak above baseline is below ``SegmenterSettings/minimumPeakFractionOfRecordingMax`` of
/// the best are removed as bumps. An explicit recording (``beginRecording(atMicros:emit:)``) ends only at
/// ``endRecording(emit:)`` or ``endOfStream(emit:)``, at the last sample.
///
/// **Bad input never traps.** Non-finite forces and samples older than the previous one are skipped and counted
/// in ``rejectedSamples``; extreme times saturate.
///
/// - Important: One segmenter per device stream, driven from one thread (it is a value type).
public struct EffortSegmenter: Sendable {
    /// How many idle samples are kept for the baseline median and the rising edge (≈ 11 s at the Progressor's
    /// ≈ 88 Hz). Preallocated.
    public static let idleHistoryCapacity = 1024
    /// Effort samples preallocated for (≈ 90 s at ≈ 88 Hz); longer efforts grow the buffer once, which is kept.
    public static let effortCapacity = 8192

    /// The segmentation knobs.
    public let settings: SegmenterSettings
    /// The current baseline (kg, raw); `nil` before the first sample of a stream.
    public var baselineKg: Float? {
        switch baseline {
        case .unknown: nil
        case .level(let kg): kg
        case .idleMedian: history.median()
        }
    }
    /// Samples skipped because their force was not finite or their time was older than the previous sample.
    public private(set) var rejectedSamples = 0
    /// Whether a recording is open.
    public var isRecording: Bool { recordings.isOpen }

    /// Where the segmenter is in the stream, with what it knows there.
    private enum Phase: Sendable {
        /// Below the on-level; samples feed the baseline.
        case idle
        /// Inside an effort candidate; the baseline is frozen.
        case effort(EffortCandidate)
        /// The stream started loaded: an effort under way or a pre-load, not yet known. Samples are kept in
        /// `trace` and nothing is emitted.
        case opening(EffortCandidate, OpeningLoad)
        /// An effort was force-closed (explicit stop); no new effort until force falls below the off-level.
        case waitingForRelease

        /// The effort under way (known or not yet known to be one).
        var candidate: EffortCandidate? {
            switch self {
            case .effort(let candidate), .opening(let candidate, _): candidate
            case .idle, .waitingForRelease: nil
            }
        }
    }

    /// An effort candidate from its on-crossing (or the stream's loaded start) until it ends. Its samples are in
    /// `trace`, a buffer the segmenter keeps and reuses across candidates so that a sample never allocates.
    private struct EffortCandidate: Sendable {
        /// Interpolated on-crossing, or the first sample when the rise was not seen (stream µs).
        var startMicros: Int64
        /// The baseline, frozen for the candidate (kg).
        var baselineKg: Float
        var peakKg: Float
        /// `effortStarted` was emitted (the candidate was accepted while it lasted).
        var announced = false
        /// The effort's rise was not seen (the stream started or resumed above the on-level).
        var openStart: Bool
    }

    /// What is known of a stream that started loaded.
    private struct OpeningLoad: Sendable {
        /// Lowest force of the stream so far (kg).
        var lowestKg: Float
        /// The current run of samples within the rest band: its first sample's time and its force range.
        var restRunStart: Int64
        var restRunLowest: Float
        var restRunHighest: Float
    }

    /// Where the baseline comes from.
    private enum Baseline: Sendable {
        /// Before the first sample of a stream.
        case unknown
        /// A level kept until an idle run settles: the prior, a pre-load's rest level, or the median an idle run
        /// ended with.
        case level(Float)
        /// The median of the settled idle run's window, as it slides; its value is read only when it is needed.
        case idleMedian
    }

    private var phase = Phase.idle
    private var baseline = Baseline.unknown
    private var history: IdleHistory
    /// Time of the first sample of the current idle run (stream µs); `nil` outside one.
    private var idleRunStart: Int64? = nil
    /// Last sample of the current stream segment; `nil` at stream start and after an interruption.
    private var last: ForceSample? = nil
    /// Time of the last accepted sample (stream µs), across interruptions; orders input.
    private var lastMicros: Int64? = nil

    /// The candidate's samples: rising edge + effort samples + the first sample after the off-crossing.
    private var trace: [ForceSample]

    /// The efforts grouped into recordings.
    private var recordings: RecordingGrouper

    /// Creates a segmenter and preallocates its buffers.
    ///
    /// - Parameter settings: Thresholds, durations and gaps (kg above baseline, stream µs).
    public init(settings: SegmenterSettings = .init()) {
        self.settings = settings
        history = IdleHistory(capacity: Self.idleHistoryCapacity)
        trace = []
        trace.reserveCapacity(Self.effortCapacity)
        recordings = RecordingGrouper(settings: settings)
    }

    // MARK: - Input

    /// Processes one sample.
    ///
    /// HOT PATH: no allocation in steady state (buffers are preallocated and reused), no lock, no I/O.
    ///
    /// - Parameters:
    ///   - micros: Sample time on the stream timeline (µs, from ``DeviceClock``); must not go backwards.
    ///   - kilograms: Force as reported (kg). Non-finite values are skipped and counted.
    ///   - emit: Receives the events this sample completes, in order.
    public mutating func ingest(micros: Int64, kilograms: Float, emit: (SegmentEvent) -> Void) {
        // HOT PATH: no allocation, lock, syscall or log
        guard kilograms.isFinite else {
            rejectedSamples += 1
            return
        }
        if let lastMicros, micros < lastMicros {
            rejectedSamples += 1
            return
        }
        lastMicros = micros
        var effortUnderWayStart: Int64? = nil
        if case .effort(let candidate) = phase { effortUnderWayStart = candidate.startMicros }
        recordings.sampleAccepted(at: micros, effortUnderWayStart: effortUnderWayStart, emit: emit)
        segment(ForceSample(micros: micros, kilograms: kilograms), emit: emit)
    }

    /// Runs one accepted sample through the phase machine.
    private mutating func segment(_ sample: ForceSample, emit: (SegmentEvent) -> Void) {
        defer { last = sample }
        let kilograms = sample.kilograms
        switch phase {
        case .idle:
            switch baseline {
            case .unknown:
                baseline = .level(settings.baselinePriorKg)
                if Double(kilograms) >= Double(settings.baselinePriorKg) + Double(settings.offAboveBaseline) {
                    beginOpening(at: sample)
                } else {
                    appendIdle(sample)
                }
            case .level(let level):
                if Double(kilograms) >= Double(level) + Double(settings.onAboveBaseline) {
                    beginEffort(at: sample, baseline: level, emit: emit)
                } else {
                    appendIdle(sample)
                }
            case .idleMedian:
                if reachesOnLevelOverIdleMedian(kilograms), let median = history.median() {
                    // The window stays as it is until the next idle run empties it: its median is the level now.
                    baseline = .level(median)
                    beginEffort(at: sample, baseline: median, emit: emit)
                } else {
                    appendIdle(sample)
                }
            }
        case .effort(var candidate):
            trace.append(sample)
            if Double(kilograms) < Double(candidate.baselineKg) + Double(settings.offAboveBaseline) {
                endEffort(candidate, fallingAt: sample, emit: emit)
            } else {
                if kilograms > candidate.peakKg { candidate.peakKg = kilograms }
                announceIfAccepted(&candidate, now: sample.micros, emit: emit)
                phase = .effort(candidate)
            }
        case .opening(var candidate, var opening):
            trace.append(sample)
            if Double(kilograms) < Double(candidate.baselineKg) + Double(settings.offAboveBaseline) {
                // Force fell to rest below the starting load: that load was an effort under way.
                endEffort(candidate, fallingAt: sample, emit: emit)
            } else if let restKg = restLevel(after: sample, &opening) {
                resolveAsPreload(restKg: restKg, emit: emit)
            } else {
                if kilograms > candidate.peakKg { candidate.peakKg = kilograms }
                phase = .opening(candidate, opening)
            }
        case .waitingForRelease:
            let baseline = baselineKg ?? kilograms
            if Double(kilograms) < Double(baseline) + Double(settings.offAboveBaseline) {
                phase = .idle
                appendIdle(sample)
            }
        }
    }

    /// The stream was interrupted (disconnect, low-power warning): closes an effort in progress as open, ending
    /// at the last sample, and keeps the recording open.
    ///
    /// The recording still ends after ``SegmenterSettings/sessionGapMicros`` of idle (checked when samples
    /// resume on the same timeline), at ``endRecording(emit:)`` or at ``endOfStream(emit:)``. The baseline is kept
    /// until the resumed stream has been idle for ``SegmenterSettings/baselineSettleMicros``; if force is already
    /// above the on-level when samples resume, that effort starts at the first resumed sample and is open.
    ///
    /// - Parameter emit: Receives `effortEnded` (and `recordingStarted`/`effortStarted` if the cut effort is only
    ///   now accepted).
    public mutating func interruption(emit: (SegmentEvent) -> Void) {
        if let candidate = phase.candidate {
            closeEffort(candidate, endMicros: last?.micros ?? candidate.startMicros, open: true, emit: emit)
        }
        phase = .idle
        last = nil
        idleRunStart = nil
        forgetIdleHistory()
    }

    /// The stream ended: closes an effort in progress as open (ending at the last sample), closes the recording,
    /// and returns to the initial state, ready for a new stream (``rejectedSamples`` is kept).
    ///
    /// - Parameter emit: Receives the closing events, in order (`effortEnded`, then `recordingEnded`).
    public mutating func endOfStream(emit: (SegmentEvent) -> Void) {
        interruption(emit: emit)
        recordings.close(lastSampleMicros: lastMicros, emit: emit)
        recordings.streamEnded()
        baseline = .unknown
        lastMicros = nil
    }

    // MARK: - Explicit recordings

    /// Opens an explicit recording (`griptrack record`) that ends only at ``endRecording(emit:)`` or
    /// ``endOfStream(emit:)``.
    ///
    /// If a recording is already open, it becomes explicit (it keeps its start) and nothing is emitted.
    ///
    /// - Parameters:
    ///   - atMicros: Start of the recording on the stream timeline (µs), usually the last sample's time.
    ///   - emit: Receives `recordingStarted(startMicros: atMicros)`.
    public mutating func beginRecording(atMicros: Int64, emit: (SegmentEvent) -> Void) {
        recordings.beginExplicit(atMicros: atMicros, emit: emit)
    }

    /// Stops the open recording (explicit stop), automatic or explicit. No effect if none is open.
    ///
    /// An effort in progress is closed as open at the last sample, and no new effort starts until force falls
    /// below the off-level. An explicit recording ends at the last sample; an automatic one at its last effort
    /// end + post-roll, clamped to the last sample.
    ///
    /// - Parameter emit: Receives the closing events, in order (`effortEnded`, then `recordingEnded`).
    public mutating func endRecording(emit: (SegmentEvent) -> Void) {
        guard recordings.isOpen else { return }
        if let candidate = phase.candidate {
            closeEffort(candidate, endMicros: last?.micros ?? candidate.startMicros, open: true, emit: emit)
            phase = .waitingForRelease
            idleRunStart = nil
        }
        recordings.close(lastSampleMicros: lastMicros, emit: emit)
    }

    /// Ends the open recording if it is automatic, as ``endRecording(emit:)`` would; an explicit one stays open.
    ///
    /// For a stream that stops without a sample past the session gap (the daemon stopped measuring an idle
    /// device): the gap has passed, but no sample will come to close the recording by it.
    ///
    /// - Parameter emit: Receives the closing events, in order (`effortEnded`, then `recordingEnded`).
    public mutating func endAutomaticRecording(emit: (SegmentEvent) -> Void) {
        guard recordings.isAutomatic else { return }
        endRecording(emit: emit)
    }

    // MARK: - Baseline

    private mutating func appendIdle(_ sample: ForceSample) {
        if idleRunStart == nil {
            idleRunStart = sample.micros
            keepBaselineLevel()
            history.resetWindow()
        }
        history.append(micros: sample.micros, kilograms: sample.kilograms)
        let runStart = idleRunStart ?? sample.micros
        // The window is trimmed with every sample, settled or not, so it never holds more than 1.5 s.
        history.trimWindow(since: Swift.max(runStart, sample.micros.saturatingSubtracting(settings.baselineWindowMicros)))
        guard sample.micros.saturatingSubtracting(runStart) >= settings.baselineSettleMicros else { return }
        baseline = .idleMedian
    }

    /// Whether `kilograms` reaches the on-level over the idle window's median, decided without the median's value
    /// (see `IdleHistory`). HOT PATH: no allocation.
    @inline(__always)
    private func reachesOnLevelOverIdleMedian(_ kilograms: Float) -> Bool {
        let force = Double(kilograms)
        let on = Double(settings.onAboveBaseline)
        // Nearly always: below the on-level over the window's minimum, so over its median, which is not lower.
        guard let minimum = history.windowMinimum, force >= Double(minimum) + on else { return false }
        // Adding is monotonic, so the baselines `force` reaches the on-level over are every Float up to some highest
        // one: find it (a step or two from the rounded difference), then ask whether the median is at most it.
        var highest = Float(force - on)
        var steps = 0
        while !(force >= Double(highest) + on) {
            highest = highest.nextDown
            steps += 1
            // Only non-finite settings get here; decide with the median's value.
            if steps > 4 { return history.median().map { force >= Double($0) + on } ?? false }
        }
        while highest < .greatestFiniteMagnitude, force >= Double(highest.nextUp) + on { highest = highest.nextUp }
        return history.median(isAtMost: highest)
    }

    /// Before the window is emptied: a baseline that is its median keeps the median's value.
    private mutating func keepBaselineLevel() {
        if case .idleMedian = baseline, let median = history.median() { baseline = .level(median) }
    }

    /// Forgets the idle samples, keeping the baseline's level.
    private mutating func forgetIdleHistory() {
        keepBaselineLevel()
        history.removeAll()
    }

    // MARK: - A stream that starts loaded

    private mutating func beginOpening(at sample: ForceSample) {
        trace.removeAll(keepingCapacity: true)
        trace.append(sample)
        phase = .opening(
            EffortCandidate(
                startMicros: sample.micros, baselineKg: settings.baselinePriorKg, peakKg: sample.kilograms,
                openStart: true),
            OpeningLoad(
                lowestKg: sample.kilograms, restRunStart: sample.micros, restRunLowest: sample.kilograms,
                restRunHighest: sample.kilograms))
    }

    /// The level the stream rests at, once the samples up to `sample` show it: within the rest band for the
    /// rest-evidence time, at the lowest level seen; `nil` while there is no such evidence.
    private func restLevel(after sample: ForceSample, _ opening: inout OpeningLoad) -> Float? {
        let kg = sample.kilograms
        opening.lowestKg = Swift.min(opening.lowestKg, kg)
        let low = Swift.min(opening.restRunLowest, kg)
        let high = Swift.max(opening.restRunHighest, kg)
        if high - low > settings.restBandKg {
            opening.restRunStart = sample.micros
            opening.restRunLowest = kg
            opening.restRunHighest = kg
            return nil
        }
        opening.restRunLowest = low
        opening.restRunHighest = high
        guard sample.micros.saturatingSubtracting(opening.restRunStart) >= settings.restEvidenceMicros,
            low - opening.lowestKg <= settings.restBandKg
        else { return nil }
        return (low + high) / 2
    }

    /// The starting load is a pre-load: it becomes the baseline and the samples so far are segmented again.
    private mutating func resolveAsPreload(restKg: Float, emit: (SegmentEvent) -> Void) {
        // Once per stream that starts loaded: the copy of the kept samples may allocate.
        let kept = trace
        trace.removeAll(keepingCapacity: true)
        baseline = .level(restKg)
        phase = .idle
        last = nil
        idleRunStart = nil
        history.removeAll()
        for sample in kept { segment(sample, emit: emit) }
    }

    // MARK: - Efforts

    private mutating func beginEffort(at sample: ForceSample, baseline: Float, emit: (SegmentEvent) -> Void) {
        trace.removeAll(keepingCapacity: true)
        var candidate: EffortCandidate
        if let previous = last {
            let onLevel = Double(baseline) + Double(settings.onAboveBaseline)
            let start = Self.crossingTime(from: previous, to: sample, level: onLevel)
            candidate = EffortCandidate(startMicros: start, baselineKg: baseline, peakKg: sample.kilograms, openStart: false)
            appendRisingEdge(before: start, baseline: baseline)
        } else {
            // Resumed (or started) above the on-level: the rise was not seen.
            candidate = EffortCandidate(
                startMicros: sample.micros, baselineKg: baseline, peakKg: sample.kilograms, openStart: true)
        }
        trace.append(sample)
        idleRunStart = nil
        announceIfAccepted(&candidate, now: sample.micros, emit: emit)
        phase = .effort(candidate)
    }

    /// Copies the rising edge from the idle history into `trace`, oldest first.
    private mutating func appendRisingEdge(before crossing: Int64, baseline: Float) {
        let earliest = Swift.max(
            idleRunStart ?? crossing, crossing.saturatingSubtracting(settings.risingEdgeLookbackMicros))
        var oldestAge = -1
        var age = 0
        while age < history.count {
            let sample = history.sample(age: age)
            if sample.micros < earliest { break }
            oldestAge = age
            if sample.kilograms <= baseline { break }
            age += 1
        }
        while oldestAge >= 0 {
            trace.append(history.sample(age: oldestAge))
            oldestAge -= 1
        }
    }

    /// Accepts the candidate as soon as it has lasted the minimum duration and reached the minimum peak.
    private mutating func announceIfAccepted(
        _ candidate: inout EffortCandidate, now: Int64, emit: (SegmentEvent) -> Void
    ) {
        guard !candidate.announced, isAcceptable(candidate, endMicros: now) else { return }
        announce(&candidate, emit: emit)
    }

    private func isAcceptable(_ candidate: EffortCandidate, endMicros: Int64) -> Bool {
        let duration = endMicros.saturatingSubtracting(candidate.startMicros)
        let peakAbove = Double(candidate.peakKg) - Double(candidate.baselineKg)
        return (duration >= settings.minimumDurationMicros
            && peakAbove >= Double(settings.minimumPeakAboveBaseline))
            || (duration >= settings.shortEffortMinimumDurationMicros
                && peakAbove >= Double(settings.shortEffortMinimumPeakAboveBaseline))
    }

    private mutating func announce(_ candidate: inout EffortCandidate, emit: (SegmentEvent) -> Void) {
        candidate.announced = true
        recordings.effortAccepted(startingAt: candidate.startMicros, emit: emit)
        emit(.effortStarted(startMicros: candidate.startMicros))
    }

    /// Force fell below the off-level at `sample` (already in `trace`): the effort ends at the interpolated
    /// crossing and the sample starts an idle run.
    private mutating func endEffort(
        _ candidate: EffortCandidate, fallingAt sample: ForceSample, emit: (SegmentEvent) -> Void
    ) {
        let offLevel = Double(candidate.baselineKg) + Double(settings.offAboveBaseline)
        let end = last.map { Self.crossingTime(from: $0, to: sample, level: offLevel) } ?? sample.micros
        closeEffort(candidate, endMicros: end, open: false, emit: emit)
        phase = .idle
        appendIdle(sample)
    }

    /// Ends `candidate` (the caller leaves its phase next): an effort when it is acceptable, nothing otherwise.
    private mutating func closeEffort(
        _ candidate: EffortCandidate, endMicros: Int64, open: Bool, emit: (SegmentEvent) -> Void
    ) {
        defer { trace.removeAll(keepingCapacity: true) }
        var candidate = candidate
        let end = Swift.max(endMicros, candidate.startMicros)
        guard candidate.announced || isAcceptable(candidate, endMicros: end) else { return }
        guard let metrics = EffortMetrics(trace: trace, startMicros: candidate.startMicros, endMicros: end) else { return }
        if !candidate.announced { announce(&candidate, emit: emit) }
        let effort = Effort(
            metrics: metrics, startMicros: candidate.startMicros, endMicros: end, baselineKg: candidate.baselineKg,
            openStart: candidate.openStart, open: open)
        recordings.effortEnded(effort)
        emit(.effortEnded(effort))
    }

    // MARK: - Interpolation

    /// Linearly interpolated time at which the segment `a → b` passes `level` (stream µs, within `[a, b]`).
    static func crossingTime(from a: ForceSample, to b: ForceSample, level: Double) -> Int64 {
        let rise = Double(b.kilograms) - Double(a.kilograms)
        guard rise != 0 else { return b.micros }
        let fraction = (level - Double(a.kilograms)) / rise
        let time = Double(a.micros) + fraction * (Double(b.micros) - Double(a.micros))
        return Int64.clamping(time, lower: a.micros, upper: b.micros)
    }
}
