/// The best sustained force of a trace: the highest time-weighted mean over any window of a given length, e.g.
/// MVC-7, the best 7 s mean of a max-hang test (`docs/metrics.md`, "MVC-7").
///
/// The window slides over the whole trace, not only inside one effort, so a hang cut in two by a brief dip still
/// counts as the person held it. A window that spans a stretch without samples longer than ``maximumGapMicros``
/// (the link dropped) is never taken: its mean would be drawn across force nobody measured. Pure.
public enum SustainedForce {
    /// The longest stretch without samples a window may span (µs).
    public static let maximumGapMicros: Int64 = 1_000_000

    /// The best window.
    public struct Window: Sendable, Equatable {
        /// Time-weighted (trapezoid) mean force over the window (kg).
        public var meanKg: Double
        /// Where it starts (stream µs).
        public var startMicros: Int64
    }

    /// The highest mean over any `windowMicros` inside the trace, or nil when the trace is shorter than that (or every
    /// such window spans a gap).
    ///
    /// - Parameters:
    ///   - samples: The trace in time order (stream µs).
    ///   - windowMicros: The window's length (µs), e.g. 7 s.
    public static func best(of samples: [ForceSample], windowMicros: Int64) -> Window? {
        guard windowMicros > 0, samples.count >= 2 else { return nil }
        // cumulative[i]: ∫F dt from the first sample to sample i (kg·µs), by trapezoids.
        var cumulative = [Double](repeating: 0, count: samples.count)
        for index in 1..<samples.count {
            let (a, b) = (samples[index - 1], samples[index])
            cumulative[index] = cumulative[index - 1]
                + (Double(a.kilograms) + Double(b.kilograms)) / 2 * Double(b.micros - a.micros)
        }
        // The latest gap too long to span, as the index of the sample after it.
        var lastGapEnd = 0
        var start = 0  // the sample at or before the window's start
        var best: Window?
        for end in 1..<samples.count {
            if samples[end].micros - samples[end - 1].micros > maximumGapMicros { lastGapEnd = end }
            let windowStart = samples[end].micros - windowMicros
            guard windowStart >= samples[0].micros else { continue }
            while start + 1 < samples.count, samples[start + 1].micros <= windowStart { start += 1 }
            guard start >= lastGapEnd else { continue }
            // ∫ from windowStart to the next sample after it, interpolating F at windowStart.
            let (a, b) = (samples[start], samples[start + 1])
            let span = Double(b.micros - a.micros)
            let fraction = span > 0 ? Double(windowStart - a.micros) / span : 0
            let atStart = Double(a.kilograms) + fraction * (Double(b.kilograms) - Double(a.kilograms))
            let beforeStart = cumulative[start] + (Double(a.kilograms) + atStart) / 2 * Double(windowStart - a.micros)
            let mean = (cumulative[end] - beforeStart) / Double(windowMicros)
            if best == nil || mean > best!.meanKg { best = Window(meanKg: mean, startMicros: windowStart) }
        }
        return best
    }
}

/// MVC-7 (`docs/metrics.md`, "MVC-7"): the best 7 s mean inside one hold of at least 7 s. A hold is an effort, or
/// efforts whose rests between them are brief dips, so a hang with a dip still counts as held, while the window never
/// takes in the rest after a shorter pull (a 5 s pull's best 7 s mean is that pull with 2 s of rest: a figure
/// nobody held). Pure.
public enum MaximumSustainedForce {
    /// The window (µs).
    public static let windowMicros: Int64 = 7_000_000
    /// The longest rest between two efforts that still leaves them one hold (µs).
    public static let briefDipMicros: Int64 = 1_000_000
    /// How far a hold reaches past its efforts' ends on each side (µs): an effort starts and ends where force
    /// crosses the on and off levels, which leaves most of the ramps out, so a 7 s rep of a 7:3 set is cut at about
    /// 6.9 s; its hang still lasted 7 s.
    public static let rampMicros: Int64 = 250_000
    /// Why there is no MVC-7 for a recording that has efforts.
    public static let noHoldReason = "MVC-7 not computed: no pull was held for 7 s"

    /// The best window over the holds of at least 7 s, or nil when there is none.
    ///
    /// - Parameters:
    ///   - samples: The trace in time order (stream µs).
    ///   - efforts: Each effort's start and end (stream µs), in time order.
    public static func best(
        of samples: [ForceSample], efforts: [(startMicros: Int64, endMicros: Int64)]
    ) -> SustainedForce.Window? {
        // Spans compared as Double: a damaged store's times near ±2⁶³ µs must not overflow (they are shown, not
        // trapped on).
        func span(_ from: Int64, _ to: Int64) -> Double { Double(to) - Double(from) }
        var holds: [ClosedRange<Int64>] = []
        for effort in efforts where effort.endMicros >= effort.startMicros {
            if let last = holds.last, span(last.upperBound, effort.startMicros) <= Double(briefDipMicros) {
                holds[holds.count - 1] = last.lowerBound...max(last.upperBound, effort.endMicros)
            } else {
                holds.append(effort.startMicros...effort.endMicros)
            }
        }
        var best: SustainedForce.Window?
        for effortsSpan in holds {
            let start = effortsSpan.lowerBound.subtractingReportingOverflow(rampMicros)
            let end = effortsSpan.upperBound.addingReportingOverflow(rampMicros)
            let hold = (start.overflow ? .min : start.partialValue)...(end.overflow ? .max : end.partialValue)
            guard span(hold.lowerBound, hold.upperBound) >= Double(windowMicros) else { continue }
            guard let window = SustainedForce.best(
                of: samples.filter { hold.contains($0.micros) }, windowMicros: windowMicros)
            else { continue }
            if best.map({ window.meanKg > $0.meanKg }) ?? true { best = window }
        }
        return best
    }
}

/// Fatigue over a series of reps: how far the last rep's peak fell below the first's, as a percentage of the first
/// (`docs/metrics.md`, "Fatigue index"). Complete reps only; nil with fewer than three.
public enum FatigueIndex {
    /// The fewest complete reps that make a series.
    public static let minimumReps = 3

    /// `(first peak − last peak) / first peak × 100` over the complete efforts, or nil.
    public static func percent(_ efforts: [Effort]) -> Double? {
        percent(peaks: efforts.filter(\.isComplete).map { Double($0.peakKg) })
    }

    /// The same over peaks already chosen (complete reps, in time order).
    public static func percent(peaks: [Double]) -> Double? {
        guard peaks.count >= minimumReps, let first = peaks.first, let last = peaks.last, first > 0 else { return nil }
        return (first - last) / first * 100
    }
}
