import GripAnalysis

/// Which recordings a list shows (`griptrack list --athlete A --hand left --grip G`): every condition given must
/// hold; athlete and grip compare without regard to case.
public struct RecordingFilter: Sendable, Equatable {
    /// Only this athlete's recordings.
    public var athlete: String?
    /// Only recordings with this hand.
    public var hand: Hand?
    /// Only recordings with this grip.
    public var grip: String?

    /// - Parameters: See the properties; absent matches everything.
    public init(athlete: String? = nil, hand: Hand? = nil, grip: String? = nil) {
        self.athlete = athlete
        self.hand = hand
        self.grip = grip
    }

    /// Whether it lets everything through.
    public var isEmpty: Bool { self == RecordingFilter() }

    /// Whether `row` passes (the same rule as the store's query, for rows that come from elsewhere).
    public func matches(_ row: RecordingRow) -> Bool {
        func same(_ wanted: String?, _ value: String?) -> Bool {
            guard let wanted else { return true }
            return value?.lowercased() == wanted.lowercased()
        }
        return same(athlete, row.setup.athlete) && same(grip, row.setup.grip) && (hand == nil || row.hand == hand)
    }
}
