/// One rep of a ``TrainingProtocol`` as planned: when it starts, how long, which hand.
public struct PlannedRep: Sendable, Equatable {
    /// The hand a rep is planned for: left or right (a recording's ``Hand`` may also be both).
    public enum Side: String, Sendable, Equatable {
        case left, right

        /// The other hand.
        public var other: Side { self == .left ? .right : .left }
    }

    /// 1-based, across sets.
    public var number: Int
    /// 1-based set.
    public var set: Int
    /// 1-based rep within its set.
    public var repInSet: Int
    /// When it starts, from the first rep's start (µs).
    public var startMicros: Int64
    /// How long it lasts (µs); nil when the protocol sets no duration.
    public var workMicros: Int64?
    /// Which hand.
    public var hand: Side
}
