/// Critical force (CF) and W′ from an all-out intermittent test: 24 maximal 7 s contractions, 3 s apart, as
/// Giles et al. (2021) define it for the finger flexors (`docs/metrics.md`, "Critical force").
///
/// - CF is the **end-test force**: the mean of the complete reps' mean forces over the test's final quarter (the
///   last 6 of 24 reps). By then an all-out effort has used up W′ and force sits on its plateau; the mean over
///   several reps, not the last one, keeps one weak or strong rep from moving it.
/// - W′ is the **impulse above CF**: over every complete rep, its impulse minus CF × its duration, counting a rep
///   only where it lies above CF (a rep below CF adds nothing, so W′ ≥ 0). Rests add nothing: this is the published
///   "impulse above end-test force", not PyTindeq's variant that also subtracts CF over each rest.
///
/// A rep cut by the stream (an open end or start) is left out of both: its mean is not a whole contraction's.
/// Pure: efforts in, figures out.
public struct CriticalForce: Sendable, Equatable {
    /// Why the figures cannot be computed from a set of efforts.
    public enum Problem: Error, Sendable, Equatable, CustomStringConvertible {
        /// Fewer reps than an all-out test needs to reach its plateau.
        case tooFewReps(found: Int, needed: Int)
        /// Too few complete reps in the final quarter to average.
        case tooFewCompleteEndReps(found: Int, needed: Int)

        public var description: String {
            switch self {
            case .tooFewReps(let found, let needed):
                "the recording has \(found) efforts; critical force needs an all-out test of at least \(needed) reps "
                    + "(24 × 7:3 is the published one)"
            case .tooFewCompleteEndReps(let found, let needed):
                "only \(found) of the final reps are complete (at least \(needed) are needed for the end-test force)"
            }
        }
    }

    /// The shortest test whose last quarter can be taken as a plateau.
    public static let minimumReps = 12
    /// The fewest complete reps averaged for the end-test force.
    public static let minimumEndReps = 3

    /// End-test force (kg).
    public var criticalForceKg: Double
    /// Impulse above CF over the whole test (kg·s; × 9.80665 for N·s).
    public var wPrimeKgSeconds: Double
    /// Efforts in the test.
    public var reps: Int
    /// 1-based numbers of the reps whose means give CF.
    public var endReps: ClosedRange<Int>
    /// How many of ``endReps`` were complete and averaged.
    public var endRepsAveraged: Int
    /// The highest complete rep's peak (kg): the test's MVC, for CF / MVC.
    public var peakKg: Double

    /// CF as a fraction of the test's peak.
    public var fractionOfPeak: Double { peakKg > 0 ? criticalForceKg / peakKg : 0 }

    /// W′ / CF (s): how many seconds at twice CF the reserve above CF would last, a size of W′ that does not grow
    /// with strength alone; absent when CF is not above zero.
    public var wPrimeOverCriticalForceSeconds: Double? { criticalForceKg > 0 ? wPrimeKgSeconds / criticalForceKg : nil }

    /// Reps cut by the stream, left out of CF and W′.
    public var repsLeftOut: Int

    /// One contraction as the computation needs it (an ``Effort``, or a stored one).
    public struct Rep: Sendable, Equatable {
        /// Time-weighted mean force (kg).
        public var meanKg: Double
        /// Highest force (kg).
        public var peakKg: Double
        /// Length (µs).
        public var durationMicros: Int64
        /// ∫F dt (kg·s).
        public var impulseKgSeconds: Double
        /// Neither end cut by the stream.
        public var isComplete: Bool

        /// - Parameters: See the properties.
        public init(meanKg: Double, peakKg: Double, durationMicros: Int64, impulseKgSeconds: Double, isComplete: Bool) {
            self.meanKg = meanKg
            self.peakKg = peakKg
            self.durationMicros = durationMicros
            self.impulseKgSeconds = impulseKgSeconds
            self.isComplete = isComplete
        }

        /// The rep an effort is.
        public init(_ effort: Effort) {
            self.init(
                meanKg: Double(effort.meanKg), peakKg: Double(effort.peakKg), durationMicros: effort.durationMicros,
                impulseKgSeconds: effort.impulseKgSeconds, isComplete: effort.isComplete)
        }
    }

    /// Computes CF and W′.
    ///
    /// - Parameter reps: The test's contractions in time order.
    /// - Throws: ``Problem`` when they cannot be read as an all-out test.
    public init(reps: [Rep]) throws(Problem) {
        guard reps.count >= Self.minimumReps else {
            throw .tooFewReps(found: reps.count, needed: Self.minimumReps)
        }
        let windowSize = (reps.count + 3) / 4
        let window = reps.suffix(windowSize).filter(\.isComplete)
        guard window.count >= Self.minimumEndReps else {
            throw .tooFewCompleteEndReps(found: window.count, needed: Self.minimumEndReps)
        }
        let criticalForce = window.reduce(0.0) { $0 + $1.meanKg } / Double(window.count)
        let complete = reps.filter(\.isComplete)
        criticalForceKg = criticalForce
        wPrimeKgSeconds = complete.reduce(0.0) { sum, rep in
            sum + max(0, rep.impulseKgSeconds - criticalForce * Double(rep.durationMicros) / 1_000_000)
        }
        self.reps = reps.count
        endReps = (reps.count - windowSize + 1)...reps.count
        endRepsAveraged = window.count
        repsLeftOut = reps.count - complete.count
        peakKg = complete.map(\.peakKg).max() ?? 0
    }
}
