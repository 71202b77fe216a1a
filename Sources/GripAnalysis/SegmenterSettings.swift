/// The knobs of effort and recording segmentation (the rules and why: `docs/segmentation.md`).
///
/// Levels are relative to the tracked baseline, so a ~5 kg pre-load or a drifting tare does not shift them.
public struct SegmenterSettings: Sendable, Equatable, Codable {
    /// An effort starts when force rises this far above the baseline (kg).
    public var onAboveBaseline: Float = 3.0
    /// An effort ends when force falls back below this much above the baseline (kg).
    public var offAboveBaseline: Float = 1.5
    /// Efforts shorter than this are chatter, not efforts (device µs), unless they are explosive (see
    /// ``shortEffortMinimumPeakAboveBaseline``).
    public var minimumDurationMicros: Int64 = 1_000_000
    /// An effort must peak at least this far above the baseline (kg), so one that barely crosses the on-level
    /// is not an effort.
    public var minimumPeakAboveBaseline: Float = 5.0
    /// An explosive pull (an RFD test: up in ~0.15 s, released within ~0.5 s) is an effort once it has lasted
    /// this long (µs), if it peaked at least ``shortEffortMinimumPeakAboveBaseline`` above the baseline.
    /// Threshold chatter (10–90 ms around the on-level) stays below it.
    public var shortEffortMinimumDurationMicros: Int64 = 150_000
    /// How far above the baseline (kg) an effort shorter than ``minimumDurationMicros`` must peak to count.
    public var shortEffortMinimumPeakAboveBaseline: Float = 10.0
    /// An effort whose peak (above baseline) is below this fraction of the recording's strongest effort is a
    /// bump, not a rep, and is dropped when the recording closes. Low, so that light work (6–8 kg wrist
    /// rotations) in a session that also holds maximal pulls is kept.
    public var minimumPeakFractionOfRecordingMax: Float = 0.1
    /// Idle time that ends a recording; the next effort starts a new one (device µs, default 5 min).
    public var sessionGapMicros: Int64 = 300_000_000
    /// Samples kept before a recording's first effort (µs).
    public var preRollMicros: Int64 = 2_000_000
    /// Samples kept after a recording's last effort (µs).
    public var postRollMicros: Int64 = 2_000_000

    /// The baseline is the median of the idle samples of the last this long (µs). Limited to the last
    /// ``EffortSegmenter/idleHistoryCapacity`` idle samples.
    public var baselineWindowMicros: Int64 = 1_500_000
    /// The baseline only follows the idle samples once the idle run is this long (µs): at the start of a stream
    /// (until then it is ``baselinePriorKg``) and after an effort, an interruption or a forced close (so the
    /// decaying tail of a release does not lift it).
    public var baselineSettleMicros: Int64 = 1_000_000
    /// The baseline assumed at the start of a stream, before any evidence at rest (kg): 0 for a device that
    /// was tared (the Progressor's hardware tare zeroes it). A stream that starts at or above this + the
    /// off-level is an effort already under way, unless it turns out to rest there (see ``restEvidenceMicros``).
    public var baselinePriorKg: Float = 0
    /// A stream that starts loaded is a pre-load, not an effort, when the force stays within ``restBandKg``
    /// for this long (µs) at the lowest level the stream has shown.
    public var restEvidenceMicros: Int64 = 2_000_000
    /// Peak-to-peak spread of force at rest (kg): sensor noise on a dead weight, far below a hand's tremor.
    public var restBandKg: Float = 0.5
    /// How far before the on-level crossing the rising edge may be looked for (µs). An effort's trace starts at
    /// the last idle sample at or below the baseline within this span, so RFD 20–80 % can find t20 below the
    /// on-level, also on a pre-load.
    public var risingEdgeLookbackMicros: Int64 = 2_000_000

    private enum CodingKeys: String, CodingKey {
        case onAboveBaseline, offAboveBaseline, minimumDurationMicros, minimumPeakAboveBaseline
        case shortEffortMinimumDurationMicros, shortEffortMinimumPeakAboveBaseline
        case minimumPeakFractionOfRecordingMax, sessionGapMicros, preRollMicros, postRollMicros
        case baselineWindowMicros, baselineSettleMicros, risingEdgeLookbackMicros
        case baselinePriorKg, restEvidenceMicros, restBandKg
    }

    /// Decodes settings; a missing key keeps its default, so older configurations still load.
    ///
    /// - Parameter decoder: The decoder to read from.
    /// - Throws: `DecodingError` when a present key has the wrong type.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        func read<T: Decodable>(_ key: CodingKeys, _ value: inout T) throws {
            if let decoded = try c.decodeIfPresent(T.self, forKey: key) { value = decoded }
        }
        try read(.onAboveBaseline, &onAboveBaseline)
        try read(.offAboveBaseline, &offAboveBaseline)
        try read(.minimumDurationMicros, &minimumDurationMicros)
        try read(.minimumPeakAboveBaseline, &minimumPeakAboveBaseline)
        try read(.shortEffortMinimumDurationMicros, &shortEffortMinimumDurationMicros)
        try read(.shortEffortMinimumPeakAboveBaseline, &shortEffortMinimumPeakAboveBaseline)
        try read(.minimumPeakFractionOfRecordingMax, &minimumPeakFractionOfRecordingMax)
        try read(.sessionGapMicros, &sessionGapMicros)
        try read(.preRollMicros, &preRollMicros)
        try read(.postRollMicros, &postRollMicros)
        try read(.baselineWindowMicros, &baselineWindowMicros)
        try read(.baselineSettleMicros, &baselineSettleMicros)
        try read(.risingEdgeLookbackMicros, &risingEdgeLookbackMicros)
        try read(.baselinePriorKg, &baselinePriorKg)
        try read(.restEvidenceMicros, &restEvidenceMicros)
        try read(.restBandKg, &restBandKg)
    }

    /// Creates the default settings (`docs/segmentation.md`: 3.0 kg on, 1.5 kg off, ≥ 1 s or ≥ 0.15 s and
    /// 10 kg, 5 min gap).
    public init() {}
}
