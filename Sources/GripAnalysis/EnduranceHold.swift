/// Time to failure of an endurance hold (`docs/metrics.md`, "Endurance: time to failure").
///
/// **Failure** is the start of the first stretch in which force stays under ``failureFraction`` of the hold's peak
/// so far for longer than ``failureMicros``: a hand that lets go does not come back within a second, while a brief
/// dip (a re-grip, a shift of the feet) does and is not failure. The peak leaves out single-sample spikes
/// (``EffortMetrics/isSpike(_:at:)``). A trace that ends under the level has failed where it went under (the hand
/// let go and the recording stopped); one that ends above it was still holding and has no time to failure. Pure.
public struct EnduranceHold: Sendable, Equatable {
    /// Failure is force under this fraction of the hold's peak so far.
    public static let failureFraction = 0.2
    /// …for longer than this (µs).
    public static let failureMicros: Int64 = 1_000_000

    /// Where the hold began (stream µs): the first effort's onset.
    public var onsetMicros: Int64
    /// The hold's peak up to failure (kg).
    public var peakKg: Double
    /// Where force went under the level for good (stream µs, interpolated), or nil when still holding at the end.
    public var failureAtMicros: Int64?

    /// Onset to failure (µs), or nil when the hold had not failed when the trace ended.
    public var timeToFailureMicros: Int64? { failureAtMicros.map { $0 - onsetMicros } }

    /// Reads the hold that starts at `onsetMicros`.
    ///
    /// - Parameters:
    ///   - trace: Samples in time order (stream µs, kg).
    ///   - onsetMicros: The hold's onset (the first effort's start).
    /// - Returns: nil when the trace has no sample after the onset.
    public init?(trace: [ForceSample], onsetMicros: Int64) {
        guard let first = trace.firstIndex(where: { $0.micros >= onsetMicros }) else { return nil }
        self.onsetMicros = onsetMicros
        var peak = -Double.infinity
        var under: Int64?  // where the current stretch under the level began
        var failure: Int64?
        for index in first..<trace.count {
            let sample = trace[index]
            let kg = Double(sample.kilograms)
            if let start = under, sample.micros - start > Self.failureMicros {
                failure = start
                break
            }
            let level = Self.failureFraction * peak
            if kg < level {
                if under == nil {
                    // Interpolated downward crossing between the previous sample and this one.
                    let before = trace[max(index - 1, first)]
                    let drop = Double(before.kilograms) - kg
                    let fraction = drop > 0 ? min(1, max(0, (Double(before.kilograms) - level) / drop)) : 0
                    under = before.micros + Int64((Double(sample.micros - before.micros) * fraction).rounded())
                }
            } else {
                under = nil
                if kg > peak, !EffortMetrics.isSpike(trace, at: index) { peak = kg }
            }
        }
        peakKg = peak.isFinite ? peak : 0
        failureAtMicros = failure ?? under
    }
}
