/// When a device that only advertises (the WH-C06) counts as connected: from its first advertisement until
/// ``silenceMicros`` pass without another (docs/devices.md, "Weiheng WH-C06").
///
/// The one rule for the daemon (host time, with a timer for the deadline) and for replay (capture time, where the
/// next advertisement is the first moment the silence can be noticed): both feed each advertisement to
/// ``advertisement(at:)`` and push the link changes it returns into the ring, so a replayed gap closes the effort
/// under way exactly where the daemon would have. Times are microseconds on one host clock; pure, no clock of its own.
public struct AdvertisementSilence: Sendable, Equatable {
    /// How long without an advertisement the link is down: the public clients use 5–10 s.
    public static let defaultSilenceMicros: Int64 = 10_000_000

    /// What an advertisement did to the link.
    public enum Change: Sendable, Equatable {
        /// The link was already up.
        case none
        /// The link was down (or never up): it is up from this advertisement.
        case up
        /// The link went down at `downAtMicros` (the silence ran out before this advertisement) and is up again now.
        case downAndUp(downAtMicros: Int64)
    }

    /// The silence after which the link is down.
    public let silenceMicros: Int64
    /// The last advertisement while the link is up; nil while it is down.
    public private(set) var lastMicros: Int64?

    /// A link that is down until the first advertisement.
    public init(silenceMicros: Int64 = Self.defaultSilenceMicros) {
        precondition(silenceMicros > 0, "the silence must be positive")
        self.silenceMicros = silenceMicros
    }

    /// When the link goes down unless another advertisement comes first; nil while it is down.
    public var downAtMicros: Int64? {
        lastMicros.map { $0.addingReportingOverflow(silenceMicros).overflow ? Int64.max : $0 + silenceMicros }
    }

    /// One advertisement at `micros`.
    public mutating func advertisement(at micros: Int64) -> Change {
        defer { lastMicros = micros }
        guard let downAt = downAtMicros else { return .up }
        return micros >= downAt ? .downAndUp(downAtMicros: downAt) : .none
    }

    /// Marks the link down if no advertisement came after `lastMicros` and its silence has run out by `micros`.
    ///
    /// - Returns: Whether the link went down.
    public mutating func expire(at micros: Int64) -> Bool {
        guard let downAt = downAtMicros, micros >= downAt else { return false }
        lastMicros = nil
        return true
    }

    /// Marks the link down whatever its last advertisement (the source stops). - Returns: whether it was up.
    public mutating func markDown() -> Bool {
        defer { lastMicros = nil }
        return lastMicros != nil
    }
}
