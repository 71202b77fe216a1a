/// One recording (grip session): a run of efforts bounded by idle gaps, or an explicit `griptrack record`.
///
/// Times are stream microseconds (``ForceSample/micros``). ``maxKg`` and ``averageKg`` are the recording's
/// scores (DESIGN.md §4); like protocol scores they leave out ``Effort/open`` (truncated) efforts.
public struct Recording: Sendable, Equatable, Codable {
    /// First instant the recording covers: first effort start − pre-roll, clamped to the first sample seen
    /// since the previous recording; or the time passed to `beginRecording` (stream µs).
    public var startMicros: Int64
    /// Last instant the recording covers: last effort end + post-roll, clamped to the last sample; or the last
    /// sample before an explicit recording was stopped (stream µs).
    public var endMicros: Int64
    /// The final efforts, in time order, after false starts were removed.
    public var efforts: [Effort]
    /// Highest peak of the efforts that are not open (kg, raw); `nil` if there is none.
    public var maxKg: Float?
    /// Mean of the peaks of the efforts that are not open (kg, raw); `nil` if there is none.
    public var averageKg: Float?
    /// How many efforts were removed when the recording closed because their peak above baseline was below
    /// ``SegmenterSettings/minimumPeakFractionOfRecordingMax`` of the recording's best.
    public var falseStartsDropped: Int

    /// Creates a recording; ``maxKg`` and ``averageKg`` are derived from `efforts`.
    ///
    /// - Parameters:
    ///   - startMicros: First instant covered (stream µs).
    ///   - endMicros: Last instant covered (stream µs).
    ///   - efforts: Final efforts in time order.
    ///   - falseStartsDropped: Efforts removed as false starts.
    public init(startMicros: Int64, endMicros: Int64, efforts: [Effort], falseStartsDropped: Int) {
        self.startMicros = startMicros
        self.endMicros = endMicros
        self.efforts = efforts
        self.falseStartsDropped = falseStartsDropped
        var count = 0
        var sum = 0.0
        var maximum: Float? = nil
        for effort in efforts where !effort.open {
            count += 1
            sum += Double(effort.peakKg)
            maximum = Swift.max(maximum ?? effort.peakKg, effort.peakKg)
        }
        self.maxKg = maximum
        self.averageKg = count > 0 ? Float(sum / Double(count)) : nil
    }
}
