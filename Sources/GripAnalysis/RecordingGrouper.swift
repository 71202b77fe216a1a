/// Groups a stream's accepted efforts into recordings (`docs/segmentation.md`, "Recordings"), for
/// ``EffortSegmenter``, which cuts the efforts: an automatic recording opens with its first accepted effort and closes
/// when no effort started for the session gap after its last one; an explicit one stays open until it is ended; when
/// one closes, efforts below a fraction of its best peak are removed as bumps.
///
/// HOT PATH: ``sampleAccepted(at:effortUnderWayStart:emit:)`` runs for every sample; it allocates nothing.
struct RecordingGrouper: Sendable {
    private struct Open: Sendable {
        var startMicros: Int64
        var explicit: Bool
        /// End of the recording's last effort (stream µs); nil before its first has ended.
        var lastEffortEnd: Int64? = nil
        /// First sample after the prospective end (last effort end + post-roll): where the next recording's floor
        /// starts if this one closes by its gap.
        var firstSampleAfterProspectiveEnd: Int64? = nil
    }

    private enum State: Sendable {
        /// No recording open. `floor`: the earliest a new one may start, the first sample seen since the previous
        /// one ended (nil until a sample comes).
        case closed(floor: Int64?)
        case open(Open)
    }

    let settings: SegmenterSettings
    private var state = State.closed(floor: nil)
    /// The open recording's efforts, before the bumps are removed: a buffer kept across recordings.
    private var efforts: [Effort]

    init(settings: SegmenterSettings) {
        self.settings = settings
        efforts = []
        efforts.reserveCapacity(64)
    }

    var isOpen: Bool {
        if case .open = state { true } else { false }
    }

    /// Whether the open recording is automatic (false when none is open).
    var isAutomatic: Bool {
        if case .open(let open) = state { !open.explicit } else { false }
    }

    /// A sample was accepted at `micros`, the stream's latest time: notes the first sample past the prospective end,
    /// closes an automatic recording whose session gap has passed (not while an effort that started within the gap
    /// is under way: `effortUnderWayStart`), and starts the next recording's floor.
    mutating func sampleAccepted(at micros: Int64, effortUnderWayStart: Int64?, emit: (SegmentEvent) -> Void) {
        switch state {
        case .closed(floor: nil):
            state = .closed(floor: micros)
        case .closed:
            break
        case .open(var open):
            guard let lastEffortEnd = open.lastEffortEnd else { return }
            if open.firstSampleAfterProspectiveEnd == nil, micros > lastEffortEnd.saturatingAdding(settings.postRollMicros) {
                open.firstSampleAfterProspectiveEnd = micros
                state = .open(open)
            }
            guard !open.explicit else { return }
            let deadline = lastEffortEnd.saturatingAdding(settings.sessionGapMicros)
            guard micros >= deadline else { return }
            // An effort that started within the gap still belongs to this recording.
            if let effortUnderWayStart, effortUnderWayStart < deadline { return }
            close(lastSampleMicros: micros, emit: emit)
            if case .closed(floor: nil) = state { state = .closed(floor: micros) }
        }
    }

    /// An effort starting at `effortStart` was accepted: opens an automatic recording if none is open (its start is
    /// the effort's minus the pre-roll, not before the floor).
    mutating func effortAccepted(startingAt effortStart: Int64, emit: (SegmentEvent) -> Void) {
        guard case .closed(let floor) = state else { return }
        let start = Swift.min(
            effortStart, Swift.max(effortStart.saturatingSubtracting(settings.preRollMicros), floor ?? effortStart))
        state = .open(Open(startMicros: start, explicit: false))
        emit(.recordingStarted(startMicros: start))
    }

    /// An accepted effort ended; it belongs to the open recording (``effortAccepted(startingAt:emit:)`` opened one).
    mutating func effortEnded(_ effort: Effort) {
        guard case .open(var open) = state else { return }
        efforts.append(effort)
        open.lastEffortEnd = effort.endMicros
        open.firstSampleAfterProspectiveEnd = nil
        state = .open(open)
    }

    /// Opens an explicit recording at `micros`, or makes the open one explicit (keeping its start, emitting nothing).
    mutating func beginExplicit(atMicros micros: Int64, emit: (SegmentEvent) -> Void) {
        if case .open(var open) = state {
            open.explicit = true
            state = .open(open)
            return
        }
        state = .open(Open(startMicros: micros, explicit: true))
        emit(.recordingStarted(startMicros: micros))
    }

    /// Closes the open recording, if any. An explicit one (or one without an ended effort) ends at the last sample;
    /// an automatic one at its last effort's end + post-roll, clamped to the last sample.
    mutating func close(lastSampleMicros: Int64?, emit: (SegmentEvent) -> Void) {
        guard case .open(let open) = state else { return }
        let lastSample = lastSampleMicros ?? open.startMicros
        var end = lastSample
        var nextFloor: Int64? = nil
        if !open.explicit, let lastEffortEnd = open.lastEffortEnd {
            end = Swift.min(lastEffortEnd.saturatingAdding(settings.postRollMicros), lastSample)
            nextFloor = open.firstSampleAfterProspectiveEnd
        }
        end = Swift.max(end, open.startMicros)

        var best = -Double.infinity
        for effort in efforts { best = Swift.max(best, Double(effort.peakAboveBaselineKg)) }
        let threshold = Double(settings.minimumPeakFractionOfRecordingMax) * best
        // Once per recording: the kept efforts are the recording's own array.
        var kept: [Effort] = []
        kept.reserveCapacity(efforts.count)
        for effort in efforts where !(Double(effort.peakAboveBaselineKg) < threshold) {
            kept.append(effort)
        }
        let finished = Recording(
            startMicros: open.startMicros, endMicros: end, efforts: kept, falseStartsDropped: efforts.count - kept.count)
        efforts.removeAll(keepingCapacity: true)
        state = .closed(floor: nextFloor)
        emit(.recordingEnded(finished))
    }

    /// The stream ended (after ``close(lastSampleMicros:emit:)``): the next stream's first sample is the floor.
    mutating func streamEnded() {
        if case .closed = state { state = .closed(floor: nil) }
    }
}
