/// The free plan's storage rule: at most ``storedRecordingLimit`` stored recordings. It reads only the
/// ``Access`` from ``resolve(_:now:)``; `GripStore` calls ``canStartRecording(storedCount:access:)`` inside the
/// transaction that reserves the new recording's slot.
public struct FreeTierPolicy: Hashable, Sendable {
    /// How many recordings the free plan keeps.
    public let storedRecordingLimit: Int

    /// The free plan: 5 stored recordings.
    public static let standard = FreeTierPolicy(storedRecordingLimit: 5)

    /// Creates a policy.
    ///
    /// - Parameter storedRecordingLimit: How many recordings the free plan keeps (at least 0).
    public init(storedRecordingLimit: Int) {
        precondition(storedRecordingLimit >= 0, "a recording limit cannot be negative")
        self.storedRecordingLimit = storedRecordingLimit
    }

    /// Whether a new recording may start.
    public enum Decision: Hashable, Sendable {
        /// Go ahead.
        case allowed
        /// Refused; the message says why and what to do.
        case refused(String)

        /// Whether the recording may start.
        public var isAllowed: Bool { self == .allowed }
    }

    /// The free-plan status line, e.g. `"Free: 4 of 5 recordings stored"`.
    ///
    /// - Parameter storedCount: Recordings stored now (not negative).
    /// - Returns: The sentence.
    public func reason(storedCount: Int) -> String {
        precondition(storedCount >= 0, "a stored count cannot be negative")
        if storedCount > storedRecordingLimit {
            return "Free: \(storedCount) recordings stored, the free plan keeps \(storedRecordingLimit)"
        }
        return "Free: \(storedCount) of \(storedRecordingLimit) recordings stored"
    }

    /// What the free plan says before it refuses: one slot left, or none. nil with Pro or with two slots or more.
    /// Every door (the CLI after a save, `list`, `status`, the web page through STATUS) shows this one sentence.
    ///
    /// - Parameters:
    ///   - storedCount: Recordings stored now (not negative).
    ///   - access: The answer of ``resolve(_:now:)``.
    /// - Returns: The warning, or nil.
    public func warning(storedCount: Int, access: Access) -> String? {
        precondition(storedCount >= 0, "a stored count cannot be negative")
        let limit = storedRecordingLimit
        guard !access.isPro, limit > 0, storedCount >= limit - 1 else { return nil }
        if storedCount == limit - 1 {
            return "One free recording left (\(storedCount) of \(limit) stored): the next fills the free plan, and "
                + "the one after is refused. Pro keeps every recording and adds trends, comparisons and downloads."
        }
        let count = storedCount == limit ? "\(limit) of \(limit) stored" : "\(storedCount) stored, it keeps \(limit)"
        return "The free plan is full (\(count)): new recordings are refused until you delete one (`griptrack delete "
            + "<id>`) or get Pro, which keeps every recording."
    }

    /// Decides whether a recording may start; Pro always may.
    ///
    /// - Parameters:
    ///   - storedCount: Recordings stored now (not negative), counted in the same transaction that reserves the slot.
    ///   - access: The answer of ``resolve(_:now:)``.
    /// - Returns: ``Decision/allowed`` or ``Decision/refused(_:)`` with the text to show.
    public func canStartRecording(storedCount: Int, access: Access) -> Decision {
        precondition(storedCount >= 0, "a stored count cannot be negative")
        if access.isPro || storedCount < storedRecordingLimit { return .allowed }
        let limit = storedRecordingLimit
        if storedCount == limit {
            return .refused(
                "Free plan keeps \(limit) recordings (\(limit) of \(limit) used). Delete one with `griptrack delete <id>` or upgrade to Pro.")
        }
        let excess = storedCount - limit + 1
        return .refused(
            "Free plan keeps \(limit) recordings (\(storedCount) stored). Delete \(excess) with `griptrack delete <id>` or upgrade to Pro.")
    }
}
