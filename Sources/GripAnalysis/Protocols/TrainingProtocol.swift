/// A test or workout as data: what `repeaters 6x 7:3 @80%` says (`docs/protocols.md`). Built from the notation by
/// ``ProtocolNotation/parse(_:)``; planned rep by rep with ``plan(firstHand:)``. Pure.
public struct TrainingProtocol: Sendable, Equatable {
    /// Which test.
    public var kind: ProtocolKind
    /// Reps in a set.
    public var reps: Int
    /// Sets.
    public var sets: Int
    /// How long each rep lasts (µs); nil for "as fast as possible" (rfd) or "to failure" (endurance).
    public var workMicros: Int64?
    /// Rest between reps (µs).
    public var restMicros: Int64
    /// Rest between sets (µs).
    public var setRestMicros: Int64
    /// The target band as percentages of the athlete's max for that hand and grip; nil for all-out tests.
    public var targetPercent: ClosedRange<Double>?
    /// Hands take turns rep by rep (right, left, right, …) instead of one hand doing every rep.
    public var alternate: Bool

    /// - Parameters: See the properties.
    public init(
        kind: ProtocolKind, reps: Int, sets: Int = 1, workMicros: Int64?, restMicros: Int64, setRestMicros: Int64 = 0,
        targetPercent: ClosedRange<Double>? = nil, alternate: Bool = false
    ) {
        self.kind = kind
        self.reps = reps
        self.sets = sets
        self.workMicros = workMicros
        self.restMicros = restMicros
        self.setRestMicros = setRestMicros
        self.targetPercent = targetPercent
        self.alternate = alternate
    }

    /// Every rep in order, timed from the first rep's start.
    ///
    /// - Parameter firstHand: Who starts; with ``alternate`` the other hand takes every second rep.
    public func plan(firstHand: PlannedRep.Side = .right) -> [PlannedRep] {
        var reps: [PlannedRep] = []
        var start: Int64 = 0
        // A rep without a set duration (rfd, endurance) is planned as 1 s of work for its timing only.
        let work = workMicros ?? 1_000_000
        for set in 0..<sets {
            for rep in 0..<self.reps {
                let number = reps.count
                let hand = alternate && number % 2 == 1 ? firstHand.other : firstHand
                reps.append(PlannedRep(
                    number: number + 1, set: set + 1, repInSet: rep + 1, startMicros: start, workMicros: workMicros,
                    hand: hand))
                start += work + (rep + 1 < self.reps ? restMicros : setRestMicros)
            }
        }
        return reps
    }
}
