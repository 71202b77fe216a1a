/// The knobs of effort and recording segmentation (`reference/domain.md` §5).
///
/// Levels are relative to the tracked baseline, so a ~5 kg pre-load or a drifting tare does not shift them.
public struct SegmenterSettings: Sendable, Equatable, Codable {
    /// An effort starts when force rises this far above the baseline (kg).
    public var onAboveBaseline: Float = 3.0
    /// An effort ends when force falls back below this much above the baseline (kg).
    public var offAboveBaseline: Float = 1.5
    /// Efforts shorter than this are chatter, not efforts (device µs).
    public var minimumDurationMicros: Int64 = 1_000_000
    /// An effort must peak at least this far above the baseline (kg), so one that barely crosses the on-level
    /// is not an effort.
    public var minimumPeakAboveBaseline: Float = 5.0
    /// An effort whose peak (above baseline) is below this fraction of the recording's strongest effort is a
    /// false start and is dropped when the recording closes.
    public var minimumPeakFractionOfRecordingMax: Float = 0.25
    /// Idle time that ends a recording; the next effort starts a new one (device µs, default 5 min).
    public var sessionGapMicros: Int64 = 300_000_000
    /// Samples kept before a recording's first effort (µs).
    public var preRollMicros: Int64 = 2_000_000
    /// Samples kept after a recording's last effort (µs).
    public var postRollMicros: Int64 = 2_000_000

    /// The baseline is the median of the idle samples of the last this long (µs). Limited to the last
    /// ``EffortSegmenter/idleHistoryCapacity`` idle samples.
    public var baselineWindowMicros: Int64 = 1_500_000
    /// After an effort, an interruption or a forced close, the baseline stays frozen until the idle run is this
    /// long (µs), so the decaying tail of a release does not lift it. The very first baseline of a stream is
    /// taken at once.
    public var baselineSettleMicros: Int64 = 1_000_000
    /// How far before the on-level crossing the rising edge may be looked for (µs). An effort's trace starts at
    /// the last idle sample at or below the baseline within this span, so RFD 20–80 % can find t20 below the
    /// on-level, also on a pre-load.
    public var risingEdgeLookbackMicros: Int64 = 2_000_000

    private enum CodingKeys: String, CodingKey {
        case onAboveBaseline, offAboveBaseline, minimumDurationMicros, minimumPeakAboveBaseline
        case minimumPeakFractionOfRecordingMax, sessionGapMicros, preRollMicros, postRollMicros
        case baselineWindowMicros, baselineSettleMicros, risingEdgeLookbackMicros
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
        try read(.minimumPeakFractionOfRecordingMax, &minimumPeakFractionOfRecordingMax)
        try read(.sessionGapMicros, &sessionGapMicros)
        try read(.preRollMicros, &preRollMicros)
        try read(.postRollMicros, &postRollMicros)
        try read(.baselineWindowMicros, &baselineWindowMicros)
        try read(.baselineSettleMicros, &baselineSettleMicros)
        try read(.risingEdgeLookbackMicros, &risingEdgeLookbackMicros)
    }

    /// Creates the default settings (`reference/domain.md` §5: 3.0 kg on, 1.5 kg off, ≥ 1 s, 5 min gap).
    public init() {}
}
