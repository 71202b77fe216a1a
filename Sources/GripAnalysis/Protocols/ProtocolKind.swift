/// The tests climbers and coaches run on a force sensor (`docs/protocols.md`).
public enum ProtocolKind: String, Sendable, Equatable, CaseIterable {
    /// Repeated hangs at a target force, e.g. 6 × 7:3 at 80 % of max.
    case repeaters
    /// Maximal pulls with long rests: the max (MVC) test.
    case max
    /// The 24 × 7:3 all-out critical-force test.
    case cf
    /// Explosive pulls: the rate-of-force-development test.
    case rfd
    /// One hold in a target band until failure.
    case endurance
}
