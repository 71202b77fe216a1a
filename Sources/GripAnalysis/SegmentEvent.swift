/// What ``EffortSegmenter`` reports, in stream order. Times are stream microseconds.
public enum SegmentEvent: Sendable, Equatable {
    /// A recording opened: with its first accepted effort, or by `beginRecording` (its start, stream µs).
    case recordingStarted(startMicros: Int64)
    /// An effort was accepted (it lasted the minimum duration and reached the minimum peak); reported as soon as
    /// that is known, with its start (stream µs).
    case effortStarted(startMicros: Int64)
    /// An accepted effort closed. Provisional: the recording may still drop it as a false start; the final
    /// list is ``Recording/efforts``.
    case effortEnded(Effort)
    /// A recording closed, with its final efforts.
    case recordingEnded(Recording)
}
