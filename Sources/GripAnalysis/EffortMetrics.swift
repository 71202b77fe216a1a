/// The per-effort metrics of `docs/segmentation.md`, computed from a force trace and an effort window.
///
/// The trace is read as a piecewise-linear function F(t) through its samples (constant before the first and
/// after the last sample). The effort window `[startMicros, endMicros]` is usually bounded by interpolated
/// threshold crossings, so it rarely falls on samples; F is interpolated at both ends.
///
/// All forces are the values the device reported (kg, not baseline-subtracted, as the Tindeq app does); all
/// times are stream microseconds (``ForceSample/micros``). The functions take arrays and loop by index so that
/// even unoptimised builds do not allocate (the segmenter calls them on its hot path).
public struct EffortMetrics: Sendable, Equatable {
    /// Highest force over the window (kg, raw): the maximum of the samples inside it and of F at both ends, leaving
    /// out single-sample spikes (``isSpike(_:at:)``).
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
    /// RFD 20–80 % as the Tindeq app computes it: `0.6 · Fmax / (t80 − t20)` (kg/s), over the trace up to the
    /// window's end with Fmax = ``peakKg``; see ``rfd2080(of:peakKg:)``. `nil` when undefined, and when the
    /// effort's samples come further apart than ``rfdLongestIntervalMicros``.
    public var rfdKgPerSecond: Double?
    /// Number of trace samples with `startMicros ≤ micros ≤ endMicros`.
    public var sampleCount: Int

    /// The longest mean interval between an effort's samples at which RFD 20–80 % is reported: 20 ms, 50 samples a
    /// second. A fast pull rises from 20 to 80 % in about 100 ms; slower sampling leaves one or two samples on the
    /// rise, and the interpolated crossings then say more about the sample times than about the pull (a 10 Hz
    /// Entralpi, a 5 Hz weight scale, a 2 Hz WH-C06). docs/metrics.md, "What each figure needs".
    public static let rfdLongestIntervalMicros: Int64 = 20_000

    /// The coarsest step between a device's values (kg) at which RFD and time to peak are reported: 0.1 kg. A device
    /// that reports whole kilograms (the Climbro) draws a pull's rise as a staircase of 1 kg steps, so the time the
    /// peak was first reached and the 20 % and 80 % crossings are where a step happened to fall, not where the force
    /// was (docs/metrics.md, "What each figure needs").
    public static let coarsestTimingResolutionKg: Float = 0.1

    /// Why RFD and time to peak are not given for a device whose values come in `resolutionKg` steps, or nil when
    /// they are (``coarsestTimingResolutionKg``).
    /// - Parameter device: the device's name, for the message.
    public static func timingLeftOut(resolutionKg: Float, device: String) -> String? {
        guard resolutionKg > coarsestTimingResolutionKg else { return nil }
        let step = resolutionKg == resolutionKg.rounded() ? "\(Int(resolutionKg))" : "\(resolutionKg)"
        return "RFD 20–80 % and time to peak not computed: the \(device) reports \(step) kg steps; timing a rise "
            + "needs \(coarsestTimingResolutionKg) kg or finer"
    }

    /// How far one sample must stand above both neighbours to be a spike (kg).
    public static let spikeMarginKg: Float = 5
    /// The longest span between a spike's neighbours (µs): 50 ms, so the rule applies at 40 samples a second and
    /// faster. At 10 Hz one sample may be all there is of a quick real pull, so slower traces keep every sample.
    public static let spikeSpanMicros: Int64 = 50_000

    /// Whether `trace[index]` is a single-sample spike, which never becomes a peak (docs/metrics.md, "Spike rule"):
    /// it stands more than ``spikeMarginKg`` above both neighbours, and they lie at most ``spikeSpanMicros`` apart.
    /// A hand cannot add 5 kg and take it off again within 50 ms; a glitched frame or a knock on the device can. The
    /// sample still counts in the impulse and mean: it was measured, and one sample moves them little.
    ///
    /// - Important: HOT PATH: no allocation.
    @inline(__always)
    public static func isSpike(_ trace: [ForceSample], at index: Int) -> Bool {
        guard index > 0, index + 1 < trace.count else { return false }
        let before = trace[index - 1]
        let after = trace[index + 1]
        // In Double: stored times are input and their difference may not fit Int64.
        guard Double(after.micros) - Double(before.micros) <= Double(spikeSpanMicros) else { return false }
        return trace[index].kilograms - Swift.max(before.kilograms, after.kilograms) > spikeMarginKg
    }

    /// Computes the metrics of one effort.
    ///
    /// - Parameters:
    ///   - trace: Samples in time order (stream µs, kg); should be finite. It may begin before the window (the
    ///     rising edge, used to find t20/t80 for RFD) and extend past it (to interpolate F at the end).
    ///   - startMicros: Effort start (stream µs), e.g. the interpolated on-level crossing.
    ///   - endMicros: Effort end (stream µs), e.g. the interpolated off-level crossing or the last sample.
    /// - Returns: The metrics, or `nil` when the trace is empty or `endMicros < startMicros`.
    public init?(trace: [ForceSample], startMicros: Int64, endMicros: Int64) {
        guard !trace.isEmpty, startMicros <= endMicros else { return nil }

        let startKg = Self.value(of: trace, at: startMicros)
        let endKg = Self.value(of: trace, at: endMicros)
        var peak = startKg
        var peakMicros = startMicros
        var count = 0
        var firstInside: Int64 = 0
        var lastInside: Int64 = 0
        // Trapezoid over the window: walk the polyline from (start, F(start)) through every inner sample to
        // (end, F(end)).
        var impulse = 0.0
        var previousMicros = startMicros
        var previousKg = Double(startKg)
        var rfdEnd = 0  // samples [0, rfdEnd) are at or before the window's end
        var index = 0
        while index < trace.count {
            let sample = trace[index]
            index += 1
            if sample.micros > endMicros { break }
            rfdEnd = index
            guard sample.micros >= startMicros else { continue }
            if count == 0 { firstInside = sample.micros }
            lastInside = sample.micros
            count += 1
            if sample.kilograms > peak, !Self.isSpike(trace, at: index - 1) {
                peak = sample.kilograms
                peakMicros = sample.micros
            }
            let kg = Double(sample.kilograms)
            impulse += Self.trapezoid(previousMicros, previousKg, sample.micros, kg)
            previousMicros = sample.micros
            previousKg = kg
        }
        impulse += Self.trapezoid(previousMicros, previousKg, endMicros, Double(endKg))
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
        // Mean interval inside the window, in Double: stored times are input and their difference may not fit Int64.
        let sampledFinely = count >= 2
            && (Double(lastInside) - Double(firstInside)) / Double(count - 1) <= Double(Self.rfdLongestIntervalMicros)
        self.rfdKgPerSecond = sampledFinely ? Self.rfd2080(of: trace, count: rfdEnd, peakKg: peak) : nil
    }

    /// RFD 20–80 % exactly as `docs/segmentation.md` defines it (reproduces the Tindeq app's `rfd2080`).
    ///
    /// `0.6 · Fmax / (t80 − t20)` in kg/s, where Fmax is the raw (not baseline-subtracted) maximum of the trace,
    /// and t20, t80 are the linearly interpolated **first upward crossings** of 0.2·Fmax and 0.8·Fmax: the first
    /// pair of consecutive samples with `F[i−1] < level ≤ F[i]`. A trace that already starts at or above a level
    /// has no upward crossing of it until it dips below and rises again.
    ///
    /// - Parameters:
    ///   - trace: Samples in time order (stream µs, kg), including the rising edge.
    ///   - peakKg: Fmax to use; `nil` takes the maximum of `trace`.
    /// - Returns: kg/s, or `nil` when Fmax is not positive and finite, a crossing is missing, or `t80 ≤ t20`.
    public static func rfd2080(of trace: [ForceSample], peakKg: Float? = nil) -> Double? {
        rfd2080(of: trace, count: trace.count, peakKg: peakKg)
    }

    /// The linearly interpolated time of the first upward crossing of `level` (stream µs, fractional).
    ///
    /// - Parameters:
    ///   - level: Force level (kg).
    ///   - trace: Samples in time order.
    /// - Returns: The time where the first segment with `F[i−1] < level ≤ F[i]` reaches `level`, or `nil`.
    public static func firstUpwardCrossing(of level: Double, in trace: [ForceSample]) -> Double? {
        firstUpwardCrossing(of: level, in: trace, count: trace.count)
    }

    /// ``rfd2080(of:peakKg:)`` over the first `count` samples.
    private static func rfd2080(of trace: [ForceSample], count: Int, peakKg: Float?) -> Double? {
        var fmax = -Float.infinity
        if let peakKg {
            fmax = peakKg
        } else {
            var index = 0
            while index < count {
                fmax = Swift.max(fmax, trace[index].kilograms)
                index += 1
            }
        }
        guard fmax > 0, fmax.isFinite else { return nil }
        guard let t20 = firstUpwardCrossing(of: 0.2 * Double(fmax), in: trace, count: count),
            let t80 = firstUpwardCrossing(of: 0.8 * Double(fmax), in: trace, count: count), t80 > t20
        else { return nil }
        return 0.6 * Double(fmax) / ((t80 - t20) / 1e6)
    }

    /// ``firstUpwardCrossing(of:in:)`` over the first `count` samples.
    private static func firstUpwardCrossing(of level: Double, in trace: [ForceSample], count: Int) -> Double? {
        var index = 1
        while index < count {
            let before = Double(trace[index - 1].kilograms)
            let after = Double(trace[index].kilograms)
            if before < level, level <= after {
                return crossingMicros(level, from: trace[index - 1], to: trace[index])
            }
            index += 1
        }
        return nil
    }

    /// Where the segment from `before` to `after` reaches `level`, linearly interpolated (stream µs, fractional).
    static func crossingMicros(_ level: Double, from before: ForceSample, to after: ForceSample) -> Double {
        let low = Double(before.kilograms)
        let fraction = (level - low) / (Double(after.kilograms) - low)
        let t0 = Double(before.micros)
        return t0 + fraction * (Double(after.micros) - t0)
    }

    /// ``rfd2080(of:peakKg:)`` over a series fed one sample at a time, for one too long to hold (an import read as
    /// it streams); Fmax must be known first (a first pass over the series).
    public struct RFD2080Stream: Sendable {
        private let fmax: Float
        private var previous: ForceSample?
        private var t20: Double?
        private var t80: Double?

        /// - Parameter peakKg: Fmax, the raw maximum of the whole series.
        public init(peakKg: Float) { fmax = peakKg }

        /// Takes the next sample in time order.
        public mutating func ingest(_ sample: ForceSample) {
            defer { previous = sample }
            guard let previous, t20 == nil || t80 == nil else { return }
            let before = Double(previous.kilograms)
            let after = Double(sample.kilograms)
            let low = 0.2 * Double(fmax)
            let high = 0.8 * Double(fmax)
            if t20 == nil, before < low, low <= after { t20 = EffortMetrics.crossingMicros(low, from: previous, to: sample) }
            if t80 == nil, before < high, high <= after { t80 = EffortMetrics.crossingMicros(high, from: previous, to: sample) }
        }

        /// kg/s, or `nil` as ``rfd2080(of:peakKg:)`` gives it.
        public var value: Double? {
            guard fmax > 0, fmax.isFinite, let t20, let t80, t80 > t20 else { return nil }
            return 0.6 * Double(fmax) / ((t80 - t20) / 1e6)
        }
    }

    /// F(t): the trace linearly interpolated at `micros`, held constant beyond its ends (kg).
    static func value(of trace: [ForceSample], at micros: Int64) -> Float {
        guard !trace.isEmpty else { return 0 }
        if micros <= trace[0].micros { return trace[0].kilograms }
        var index = 1
        while index < trace.count {
            let sample = trace[index]
            if sample.micros >= micros {
                let previous = trace[index - 1]
                if sample.micros == micros || sample.micros == previous.micros { return sample.kilograms }
                let fraction = (Double(micros) - Double(previous.micros))
                    / (Double(sample.micros) - Double(previous.micros))
                let kg = Double(previous.kilograms)
                    + fraction * (Double(sample.kilograms) - Double(previous.kilograms))
                return Float(kg)
            }
            index += 1
        }
        return trace[trace.count - 1].kilograms
    }

    /// Area of one trapezoid between two points (kg·s).
    private static func trapezoid(_ t0: Int64, _ f0: Double, _ t1: Int64, _ f1: Double) -> Double {
        (Double(t1) - Double(t0)) / 1e6 * (f0 + f1) / 2
    }
}
