/// What decides access besides the stored facts: the configuration's bypass flag and the free plan's rule.
public struct AccessContext: Sendable, Equatable {
    /// Early access for everyone (`[entitlements] bypass` in the configuration).
    public var bypass: Bool
    /// The free plan (5 stored recordings).
    public var policy: FreeTierPolicy

    /// Creates a context.
    ///
    /// - Parameters:
    ///   - bypass: Early access for everyone.
    ///   - policy: The free plan; ``FreeTierPolicy/standard`` by default.
    public init(bypass: Bool = false, policy: FreeTierPolicy = .standard) {
        self.bypass = bypass
        self.policy = policy
    }
}
