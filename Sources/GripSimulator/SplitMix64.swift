/// A tiny deterministic generator, so every simulated capture is byte-identical from run to run and machine to
/// machine (the golden files depend on it). Not for anything but test fixtures and simulations.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// A generator starting from `seed`.
    public init(seed: UInt64) { state = seed }

    /// The next 64 pseudo-random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniform double in [0, 1) built from 53 random bits (platform-independent, unlike `Double.random`).
    mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }

    /// An approximately normal value (Irwin–Hall with 4 terms), cheap and deterministic.
    mutating func gaussian(sigma: Double) -> Double {
        (unit() + unit() + unit() + unit() - 2) * sigma * 1.732
    }
}
