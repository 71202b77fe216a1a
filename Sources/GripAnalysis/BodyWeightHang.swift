/// Body weight measured by hanging still on the device (`docs/metrics.md`, "% of body weight"): the median force over
/// seconds 5 to 10 of a hang of at least 10 s. The first 5 s hold the jump onto the device and its swing; a median
/// over the next 5 leaves out the odd jolt that a mean would keep. Pure.
public enum BodyWeightHang {
    /// How long the hang must last (µs).
    public static let hangMicros: Int64 = 10_000_000
    /// Where the measured stretch begins, from the hang's onset (µs).
    public static let settleMicros: Int64 = 5_000_000

    /// Why a hang gives no body weight.
    public enum Problem: Error, Sendable, Equatable, CustomStringConvertible {
        /// The hang was shorter than ``hangMicros``.
        case tooShort(micros: Int64)
        /// No samples in the measured stretch (a lost link).
        case noSamples

        public var description: String {
            switch self {
            case .tooShort(let micros):
                "the hang lasted " + String(Double(micros / 100_000) / 10) + " s; hang still for 10 s"
            case .noSamples:
                "no samples between 5 and 10 s into the hang"
            }
        }
    }

    /// The body weight (kg) from a hang.
    ///
    /// - Parameters:
    ///   - trace: Samples in time order (stream µs).
    ///   - onsetMicros: The hang's start (its effort's start).
    ///   - endMicros: The hang's end (its effort's end).
    /// - Throws: ``Problem``.
    public static func kilograms(
        trace: [ForceSample], onsetMicros: Int64, endMicros: Int64
    ) throws(Problem) -> Double {
        guard endMicros - onsetMicros >= hangMicros else { throw .tooShort(micros: endMicros - onsetMicros) }
        let from = onsetMicros + settleMicros
        let to = onsetMicros + hangMicros
        let forces = trace.filter { $0.micros >= from && $0.micros <= to }.map { Double($0.kilograms) }.sorted()
        guard !forces.isEmpty else { throw .noSamples }
        let middle = forces.count / 2
        return forces.count % 2 == 1 ? forces[middle] : (forces[middle - 1] + forces[middle]) / 2
    }
}
