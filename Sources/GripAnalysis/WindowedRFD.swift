/// Rate of force development over a fixed window from onset, `(F(onset + Δ) − F(onset)) / Δ` in kg/s, for Δ = 100 ms
/// and 200 ms (`docs/metrics.md`, "RFD over fixed windows"): the form sports-science studies report beside RFD 20–80.
///
/// Onset is the effort's start: the interpolated upward crossing of baseline + the segmenter's on-level. Both forces
/// are read off the trace by linear interpolation. A window is only as honest as the samples inside it, so a trace
/// whose typical sample interval leaves fewer than ``minimumSamplesPerWindow`` in the window gets no value and the
/// reason (a 2 Hz WH-C06 or a 10 Hz Entralpi sees no 100 ms rise; the Progressor's 80 Hz puts 8 samples in it).
/// Pure.
public enum WindowedRFD {
    /// The windows reported (µs).
    public static let windowsMicros: [Int64] = [100_000, 200_000]
    /// The fewest samples a window must hold for its slope to be reported.
    public static let minimumSamplesPerWindow = 4

    /// Whether the trace's sample rate supports a window, or the rate it needs.
    public enum Support: Sendable, Equatable {
        case supported
        /// The trace's typical rate (Hz) is below what the window needs (Hz).
        case tooSlow(rateHz: Double, neededHz: Double)
    }

    /// The median interval between consecutive samples (µs), or nil under two samples.
    public static func typicalIntervalMicros(of trace: [ForceSample]) -> Int64? {
        guard trace.count >= 2 else { return nil }
        var intervals = zip(trace.dropFirst(), trace).map { $0.micros - $1.micros }.filter { $0 > 0 }
        guard !intervals.isEmpty else { return nil }
        intervals.sort()
        return intervals[intervals.count / 2]
    }

    /// Whether a trace with this typical interval supports a window of `windowMicros`.
    public static func support(intervalMicros: Int64, windowMicros: Int64) -> Support {
        let neededHz = Double(minimumSamplesPerWindow) * 1_000_000 / Double(windowMicros)
        let rateHz = 1_000_000 / Double(max(intervalMicros, 1))
        return rateHz >= neededHz ? .supported : .tooSlow(rateHz: rateHz, neededHz: neededHz)
    }

    /// The slope over `windowMicros` from `onsetMicros` (kg/s), or nil when the window runs past the trace's end.
    public static func rfd(of trace: [ForceSample], onsetMicros: Int64, windowMicros: Int64) -> Double? {
        guard windowMicros > 0, let last = trace.last, let first = trace.first,
              onsetMicros >= first.micros, onsetMicros <= last.micros - windowMicros else { return nil }
        let start = Double(EffortMetrics.value(of: trace, at: onsetMicros))
        let end = Double(EffortMetrics.value(of: trace, at: onsetMicros + windowMicros))
        return (end - start) / (Double(windowMicros) / 1_000_000)
    }
}
