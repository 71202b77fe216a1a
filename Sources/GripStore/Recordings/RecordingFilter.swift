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
        matches(athlete: row.setup.athlete, hand: row.hand?.rawValue, grip: row.setup.grip)
    }

    /// Whether a recording with these fields passes (a daemon's LIST object, which the web app filters as the CLI
    /// does: docs/web.md, "The recordings list").
    package func matches(athlete: String?, hand: String?, grip: String?) -> Bool {
        func same(_ wanted: String?, _ value: String?) -> Bool {
            guard let wanted else { return true }
            return value?.lowercased() == wanted.lowercased()
        }
        return same(self.athlete, athlete) && same(self.grip, grip) && (self.hand == nil || hand == self.hand?.rawValue)
    }

    /// The filter of `griptrack list --athlete A --hand H --grip G` given as text (the web app's query); nil when
    /// `hand` is not left, right or both.
    package init?(athlete: String?, handName: String?, grip: String?) {
        var hand: Hand?
        if let handName {
            guard let named = Hand(rawValue: handName) else { return nil }
            hand = named
        }
        self.init(athlete: athlete, hand: hand, grip: grip)
    }
}
