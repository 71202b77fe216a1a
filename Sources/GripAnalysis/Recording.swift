/// One recording (grip session): a run of efforts bounded by idle gaps, or an explicit `griptrack record`.
///
/// Times are stream microseconds (``ForceSample/micros``). ``maxKg`` and ``averageKg`` are the recording's
/// scores (`docs/segmentation.md`): every measured peak counts in the max, open efforts included; the average
/// is over the efforts seen whole.
public struct Recording: Sendable, Equatable, Codable {
    /// First instant the recording covers: first effort start − pre-roll, clamped to the first sample seen
    /// since the previous recording; or the time passed to `beginRecording` (stream µs).
    public var startMicros: Int64
    /// Last instant the recording covers: last effort end + post-roll, clamped to the last sample; or the last
    /// sample before an explicit recording was stopped (stream µs).
    public var endMicros: Int64
    /// The final efforts, in time order, after false starts were removed.
    public var efforts: [Effort]
    /// Highest effort peak (kg, raw), open efforts included: the force was measured. `nil` without efforts.
    public var maxKg: Float?
    /// Mean of the peaks of the complete efforts (``Effort/isComplete``), or of all efforts when none is
    /// complete (kg, raw); `nil` without efforts. A rep cut by the stream would pull the mean down by a peak it
    /// may never have reached, so it counts only when nothing better exists.
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
        var maximum: Float? = nil
        var complete = (count: 0, sum: 0.0)
        var all = (count: 0, sum: 0.0)
        for effort in efforts {
            maximum = Swift.max(maximum ?? effort.peakKg, effort.peakKg)
            all = (all.count + 1, all.sum + Double(effort.peakKg))
            if effort.isComplete { complete = (complete.count + 1, complete.sum + Double(effort.peakKg)) }
        }
        let averaged = complete.count > 0 ? complete : all
        self.maxKg = maximum
        self.averageKg = averaged.count > 0 ? Float(averaged.sum / Double(averaged.count)) : nil
    }
}
