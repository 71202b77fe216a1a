/// The per-effort metrics of `reference/domain.md` §3, computed from a force trace and an effort window.
///
/// The trace is read as a piecewise-linear function F(t) through its samples (constant before the first and
/// after the last sample). The effort window `[startMicros, endMicros]` is usually bounded by interpolated
/// threshold crossings, so it rarely falls on samples; F is interpolated at both ends.
///
/// All forces are the values the device reported (kg, not baseline-subtracted, as the Tindeq app does); all
/// times are stream microseconds (``ForceSample/micros``).
public struct EffortMetrics: Sendable, Equatable {
    /// Highest force over the window (kg, raw): the maximum of the samples inside it and of F at both ends.
    public var peakKg: Float
    /// Time of the first occurrence of ``peakKg`` (stream µs).
    public var peakMicros: Int64
    /// Time-weighted mean force over the window: ``impulseKgSeconds`` / duration (kg). For an empty window
    /// (start == end), F at the start.
    public var meanKg: Float
    /// ∫F dt over the window by the trapezoid rule on device timestamps (kg·s; × 9.80665 for N·s).
    public var impulseKgSeconds: Double
    /// `peakMicros − startMicros` (µs).
    public var timeToPeakMicros: Int64
    /// RFD 20–80 % as the Tindeq app computes it: `0.6 · Fmax / (t80 − t20)` (kg/s); see
    /// ``rfd2080(of:peakKg:)``. `nil` when undefined.
    public var rfdKgPerSecond: Double?
    /// Number of trace samples with `startMicros ≤ micros ≤ endMicros`.
    public var sampleCount: Int

    /// Computes the metrics of one effort.
    ///
    /// - Parameters:
    ///   - trace: Samples in time order (stream µs, kg); should be finite. It may begin before the window (the
    ///     rising edge, used to find t20/t80 for RFD) and extend one sample past it (to interpolate F at the end).
    ///   - startMicros: Effort start (stream µs), e.g. the interpolated on-level crossing.
    ///   - endMicros: Effort end (stream µs), e.g. the interpolated off-level crossing or the last sample.
    /// - Returns: The metrics, or `nil` when the trace is empty or `endMicros < startMicros`.
    public init?<Trace: RandomAccessCollection<ForceSample>>(
        trace: Trace, startMicros: Int64, endMicros: Int64
    ) {
        guard !trace.isEmpty, startMicros <= endMicros else { return nil }

        let startKg = Self.value(of: trace, at: startMicros)
        let endKg = Self.value(of: trace, at: endMicros)
        var peak = startKg
        var peakMicros = startMicros
        var count = 0
        // Trapezoid over the window: walk the polyline from (start, F(start)) through every inner sample to
        // (end, F(end)).
        var impulse = 0.0
        var previous = (micros: startMicros, kg: Double(startKg))
        var rfdEnd = trace.startIndex
        for index in trace.indices {
            let sample = trace[index]
            if sample.micros <= endMicros { rfdEnd = trace.index(after: index) }
            guard sample.micros >= startMicros, sample.micros <= endMicros else { continue }
            count += 1
            if sample.kilograms > peak {
                peak = sample.kilograms
                peakMicros = sample.micros
            }
            impulse += Self.trapezoid(from: previous, to: (sample.micros, Double(sample.kilograms)))
            previous = (sample.micros, Double(sample.kilograms))
        }
        impulse += Self.trapezoid(from: previous, to: (endMicros, Double(endKg)))
        if endKg > peak {
            peak = endKg
            peakMicros = endMicros
        }

        let durationSeconds = (Double(endMicros) - Double(startMicros)) / 1e6
        self.peakKg = peak
        self.peakMicros = peakMicros
        self.impulseKgSeconds = impulse
        self.meanKg = durationSeconds > 0 ? Float(impulse / durationSeconds) : startKg
        self.timeToPeakMicros = peakMicros.saturatingSubtracting(startMicros)
        self.sampleCount = count
        self.rfdKgPerSecond = Self.rfd2080(of: trace[trace.startIndex..<rfdEnd], peakKg: peak)
    }

    /// RFD 20–80 % exactly as `reference/domain.md` §3 defines it (reproduces the Tindeq app's `rfd2080`).
    ///
    /// `0.6 · Fmax / (t80 − t20)` in kg/s, where Fmax is the raw (not baseline-subtracted) maximum of the trace,
    /// and t20, t80 are the linearly interpolated **first upward crossings** of 0.2·Fmax and 0.8·Fmax: the first
    /// pair of consecutive samples with `F[i−1] < level ≤ F[i]`. A trace that already starts at or above a level
    /// has no upward crossing of it until it dips below and rises again.
    ///
    /// - Parameters:
    ///   - trace: Samples in time order (stream µs, kg), including the rising edge.
    ///   - peakKg: Fmax to use; `nil` takes the maximum of `trace`.
    /// - Returns: kg/s, or `nil` when Fmax ≤ 0, a crossing is missing, or `t80 ≤ t20`.
    public static func rfd2080<Trace: RandomAccessCollection<ForceSample>>(
        of trace: Trace, peakKg: Float? = nil
    ) -> Double? {
        let fmax: Float
        if let peakKg {
            fmax = peakKg
        } else {
            guard let maximum = trace.lazy.map(\.kilograms).max() else { return nil }
            fmax = maximum
        }
        guard fmax > 0, fmax.isFinite else { return nil }
        guard let t20 = firstUpwardCrossing(of: 0.2 * Double(fmax), in: trace),
            let t80 = firstUpwardCrossing(of: 0.8 * Double(fmax), in: trace), t80 > t20
        else { return nil }
        return 0.6 * Double(fmax) / ((t80 - t20) / 1e6)
    }

    /// The linearly interpolated time of the first upward crossing of `level` (stream µs, fractional).
    ///
    /// - Parameters:
    ///   - level: Force level (kg).
    ///   - trace: Samples in time order.
    /// - Returns: The time where the segment `F[i−1] < level ≤ F[i]` reaches `level`, or `nil` if none.
    public static func firstUpwardCrossing<Trace: RandomAccessCollection<ForceSample>>(
        of level: Double, in trace: Trace
    ) -> Double? {
        var previous: ForceSample? = nil
        for sample in trace {
            defer { previous = sample }
            guard let previous else { continue }
            let before = Double(previous.kilograms)
            let after = Double(sample.kilograms)
            if before < level, level <= after {
                let fraction = (level - before) / (after - before)
                let t0 = Double(previous.micros)
                return t0 + fraction * (Double(sample.micros) - t0)
            }
        }
        return nil
    }

    /// F(t): the trace linearly interpolated at `micros`, held constant beyond its ends (kg).
    static func value<Trace: RandomAccessCollection<ForceSample>>(of trace: Trace, at micros: Int64) -> Float {
        guard let first = trace.first, let last = trace.last else { return 0 }
        if micros <= first.micros { return first.kilograms }
        if micros >= last.micros { return last.kilograms }
        var previous = first
        for sample in trace {
            if sample.micros >= micros {
                if sample.micros == micros || sample.micros == previous.micros { return sample.kilograms }
                let fraction = (Double(micros) - Double(previous.micros))
                    / (Double(sample.micros) - Double(previous.micros))
                let kg = Double(previous.kilograms)
                    + fraction * (Double(sample.kilograms) - Double(previous.kilograms))
                return Float(kg)
            }
            previous = sample
        }
        return last.kilograms
    }

    /// Area of one trapezoid between two points (kg·s).
    private static func trapezoid(from a: (micros: Int64, kg: Double), to b: (micros: Int64, kg: Double)) -> Double {
        (Double(b.micros) - Double(a.micros)) / 1e6 * (a.kg + b.kg) / 2
    }
}
