/// One effort (rep): a contiguous stretch of force above the tracked baseline, with its metrics.
///
/// Times are stream microseconds (``ForceSample/micros``, device time unwrapped by ``DeviceClock``). Forces are
/// raw device values in kg (kilogram-force), **not** baseline-subtracted, as the Tindeq app reports them; the
/// baseline is kept in ``baselineKg`` so callers can subtract it. Metric definitions: `docs/segmentation.md`
/// and ``EffortMetrics``.
public struct Effort: Sendable, Equatable, Codable {
    /// Start: interpolated upward crossing of baseline + on-level, or the first sample of a stream that started
    /// (or resumed) with the effort under way (stream µs; then ``openStart`` is `true`).
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
    /// `true` when the stream cut the effort's end rather than force falling below the off-level: still above
    /// it at end of stream, interruption or explicit stop. Its peak was measured and counts in the recording's
    /// max; protocol scores that need a whole rep leave it out (`docs/segmentation.md`).
    public var open: Bool
    /// `true` when the effort was already under way when the stream started (or resumed): its rise was not
    /// seen, so ``startMicros`` is the first sample and RFD is usually undefined.
    public var openStart: Bool
    /// Number of samples inside `[startMicros, endMicros]`.
    public var sampleCount: Int

    /// Creates an effort from its fields (the segmenter computes them; this is for stores and tests).
    ///
    /// - Parameters: See the properties of the same names (times in stream µs, forces in kg).
    public init(
        startMicros: Int64, endMicros: Int64, durationMicros: Int64, peakKg: Float, peakMicros: Int64,
        meanKg: Float, timeToPeakMicros: Int64, rfdKgPerSecond: Double?, impulseKgSeconds: Double,
        baselineKg: Float, openStart: Bool = false, open: Bool, sampleCount: Int
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
        self.openStart = openStart
        self.sampleCount = sampleCount
    }

    /// Creates an effort from computed metrics.
    ///
    /// - Parameters:
    ///   - metrics: The effort's metrics over `[startMicros, endMicros]`.
    ///   - startMicros: Effort start (stream µs).
    ///   - endMicros: Effort end (stream µs).
    ///   - baselineKg: Baseline the effort was cut against (kg).
    ///   - openStart: Whether the effort was under way when the stream started (see ``openStart``).
    ///   - open: Whether the stream cut the effort's end (see ``open``).
    public init(
        metrics: EffortMetrics, startMicros: Int64, endMicros: Int64, baselineKg: Float, openStart: Bool = false,
        open: Bool
    ) {
        self.init(
            startMicros: startMicros, endMicros: endMicros,
            durationMicros: endMicros.saturatingSubtracting(startMicros), peakKg: metrics.peakKg,
            peakMicros: metrics.peakMicros, meanKg: metrics.meanKg, timeToPeakMicros: metrics.timeToPeakMicros,
            rfdKgPerSecond: metrics.rfdKgPerSecond, impulseKgSeconds: metrics.impulseKgSeconds,
            baselineKg: baselineKg, openStart: openStart, open: open, sampleCount: metrics.sampleCount)
    }

    /// Peak above the baseline (kg): how hard the effort pulled beyond any pre-load.
    public var peakAboveBaselineKg: Float { peakKg - baselineKg }

    /// Whether the stream saw the effort whole: neither end open.
    public var isComplete: Bool { !open && !openStart }

    private enum CodingKeys: String, CodingKey {
        case startMicros, endMicros, durationMicros, peakKg, peakMicros, meanKg, timeToPeakMicros
        case rfdKgPerSecond, impulseKgSeconds, baselineKg, open, openStart, sampleCount
    }

    /// Decodes an effort; `openStart`, added later, defaults to `false`.
    ///
    /// - Parameter decoder: The decoder to read from.
    /// - Throws: `DecodingError` when a field is missing or has the wrong type.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            startMicros: try c.decode(Int64.self, forKey: .startMicros),
            endMicros: try c.decode(Int64.self, forKey: .endMicros),
            durationMicros: try c.decode(Int64.self, forKey: .durationMicros),
            peakKg: try c.decode(Float.self, forKey: .peakKg),
            peakMicros: try c.decode(Int64.self, forKey: .peakMicros),
            meanKg: try c.decode(Float.self, forKey: .meanKg),
            timeToPeakMicros: try c.decode(Int64.self, forKey: .timeToPeakMicros),
            rfdKgPerSecond: try c.decodeIfPresent(Double.self, forKey: .rfdKgPerSecond),
            impulseKgSeconds: try c.decode(Double.self, forKey: .impulseKgSeconds),
            baselineKg: try c.decode(Float.self, forKey: .baselineKg),
            openStart: try c.decodeIfPresent(Bool.self, forKey: .openStart) ?? false,
            open: try c.decode(Bool.self, forKey: .open),
            sampleCount: try c.decode(Int.self, forKey: .sampleCount))
    }
}
