/// One effort (rep): a contiguous stretch of force above the tracked baseline, with its metrics.
///
/// Times are stream microseconds (``ForceSample/micros``, device time unwrapped by ``DeviceClock``). Forces are
/// raw device values in kg (kilogram-force), **not** baseline-subtracted, as the Tindeq app reports them; the
/// baseline is kept in ``baselineKg`` so callers can subtract it. Metric definitions: `reference/domain.md` §3
/// and ``EffortMetrics``.
public struct Effort: Sendable, Equatable, Codable {
    /// Start: interpolated upward crossing of baseline + on-level, or the first sample of a resumed stream if
    /// force was already above it (stream µs).
    public var startMicros: Int64
    /// End: interpolated downward crossing of baseline + off-level, or the last sample when the stream ended,
    /// was interrupted or the recording was stopped mid-effort (stream µs).
    public var endMicros: Int64
    /// `endMicros − startMicros` (µs).
    public var durationMicros: Int64
    /// Highest force (kg, raw, not baseline-subtracted).
    public var peakKg: Float
    /// Time of the first occurrence of ``peakKg`` (stream µs).
    public var peakMicros: Int64
    /// Time-weighted (trapezoid) mean force over `[startMicros, endMicros]` (kg, raw).
    public var meanKg: Float
    /// `peakMicros − startMicros` (µs).
    public var timeToPeakMicros: Int64
    /// RFD 20–80 %, `0.6 · Fmax / (t80 − t20)` (kg/s), Tindeq-compatible; `nil` when undefined (for example when
    /// the effort starts already above 20 % of its peak).
    public var rfdKgPerSecond: Double?
    /// ∫F dt over the effort by the trapezoid rule (kg·s, raw force; × 9.80665 for N·s).
    public var impulseKgSeconds: Double
    /// The baseline the effort was cut against, frozen at its start (kg).
    public var baselineKg: Float
    /// `true` when the effort was cut by the stream rather than by force falling below the off-level: still
    /// above it at end of stream, interruption or explicit stop, or already above the on-level when a stream
    /// resumed. Store it, but leave it out of protocol scores by default (`reference/domain.md` §5.5).
    public var open: Bool
    /// Number of samples inside `[startMicros, endMicros]`.
    public var sampleCount: Int

    /// Creates an effort from its fields (the segmenter computes them; this is for stores and tests).
    ///
    /// - Parameters: See the properties of the same names (times in stream µs, forces in kg).
    public init(
        startMicros: Int64, endMicros: Int64, durationMicros: Int64, peakKg: Float, peakMicros: Int64,
        meanKg: Float, timeToPeakMicros: Int64, rfdKgPerSecond: Double?, impulseKgSeconds: Double,
        baselineKg: Float, open: Bool, sampleCount: Int
    ) {
        self.startMicros = startMicros
        self.endMicros = endMicros
        self.durationMicros = durationMicros
        self.peakKg = peakKg
        self.peakMicros = peakMicros
        self.meanKg = meanKg
        self.timeToPeakMicros = timeToPeakMicros
        self.rfdKgPerSecond = rfdKgPerSecond
        self.impulseKgSeconds = impulseKgSeconds
        self.baselineKg = baselineKg
        self.open = open
        self.sampleCount = sampleCount
    }

    /// Creates an effort from computed metrics.
    ///
    /// - Parameters:
    ///   - metrics: The effort's metrics over `[startMicros, endMicros]`.
    ///   - startMicros: Effort start (stream µs).
    ///   - endMicros: Effort end (stream µs).
    ///   - baselineKg: Baseline the effort was cut against (kg).
    ///   - open: Whether the stream cut the effort (see ``open``).
    public init(metrics: EffortMetrics, startMicros: Int64, endMicros: Int64, baselineKg: Float, open: Bool) {
        self.init(
            startMicros: startMicros, endMicros: endMicros,
            durationMicros: endMicros.saturatingSubtracting(startMicros), peakKg: metrics.peakKg,
            peakMicros: metrics.peakMicros, meanKg: metrics.meanKg, timeToPeakMicros: metrics.timeToPeakMicros,
            rfdKgPerSecond: metrics.rfdKgPerSecond, impulseKgSeconds: metrics.impulseKgSeconds,
            baselineKg: baselineKg, open: open, sampleCount: metrics.sampleCount)
    }

    /// Peak above the baseline (kg): how hard the effort pulled beyond any pre-load.
    public var peakAboveBaselineKg: Float { peakKg - baselineKg }
}
