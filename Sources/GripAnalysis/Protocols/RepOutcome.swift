/// What became of one planned rep (`docs/protocols.md`, "Planned against performed").
public struct RepOutcome: Sendable, Equatable {
    /// Done, short or missed.
    public enum Status: String, Sendable, Equatable {
        /// Pulled, and held for the planned time (within ``RepMatcher/timingToleranceMicros``).
        case done
        /// Pulled, but let go more than the tolerance before the planned time was up.
        case short
        /// No pull started near the planned time.
        case missed
    }

    /// The plan.
    public var planned: PlannedRep
    /// What happened.
    public var status: Status
    /// The matched effort's index among those given; nil when missed.
    public var performedIndex: Int?
    /// How long the matched effort lasted (µs).
    public var heldMicros: Int64?
    /// The fraction of the rep's time (its planned work time, or its own length without one) spent inside the
    /// target band; nil without a band or without the athlete's max.
    public var inBandFraction: Double?
}
