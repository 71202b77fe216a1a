import GripSimulator
import GripAnalysis

/// A deterministic synthetic force signal sampled at the Tindeq Progressor's real timing.
///
/// The signal is a piecewise-linear curve built from keyframes (`hold`, `ramp`, `pull`), plus an optional linear
/// drift and optional deterministic uniform noise. Sampling follows `docs/devices.md` §4: slots every
/// 11.4 ms, with every 16th slot missing (a 22.8 ms gap), so tests see the device's uneven steps.
///
/// Keyframe times are whole microseconds, so crossing times of noise-free ramps can be computed by hand.
public struct SyntheticForce: Sendable {
    /// One keyframe: the curve passes through `kilograms` at `micros` (µs since the signal's start).
    public struct Keyframe: Sendable, Equatable {
        public var micros: Int64
        public var kilograms: Float
    }

    /// Progressor sample step (µs).
    public static let tickMicros: Int64 = 11_400
    /// Every this-many-th slot carries no sample (the slot with index % 16 == 15).
    public static let slotsPerGap: Int64 = 16

    /// The keyframes, in time order; the first is at 0.
    public private(set) var keyframes: [Keyframe]
    /// Linear drift added to the whole curve (kg per second since the start).
    public var driftKgPerSecond: Double = 0
    /// Half-width of the uniform noise added to every sample (kg); 0 = noise-free.
    public var noiseKg: Float = 0
    /// Seed of the noise generator.
    public var seed: UInt64 = 0x9E37_79B9_7F4A_7C15

    /// Starts a signal at a resting level.
    ///
    /// - Parameter restingKg: Force at time 0 (kg).
    public init(restingKg: Float = 0.5) {
        keyframes = [Keyframe(micros: 0, kilograms: restingKg)]
    }

    /// Time of the last keyframe (µs since the start).
    public var endMicros: Int64 { keyframes[keyframes.count - 1].micros }
    /// Level at the last keyframe (kg, without drift).
    public var currentKg: Float { keyframes[keyframes.count - 1].kilograms }

    /// Keeps the current level for a while.
    public mutating func hold(seconds: Double) {
        ramp(to: currentKg, seconds: seconds)
    }

    /// Moves linearly to a level.
    public mutating func ramp(to kilograms: Float, seconds: Double) {
        keyframes.append(Keyframe(micros: endMicros + Self.micros(seconds), kilograms: kilograms))
    }

    /// One pull from the current level: linear rise to `peakKg`, hold, linear fall back to the starting level.
    public mutating func pull(peakKg: Float, riseSeconds: Double = 0.4, holdSeconds: Double = 3, fallSeconds: Double = 0.5) {
        let rest = currentKg
        ramp(to: peakKg, seconds: riseSeconds)
        hold(seconds: holdSeconds)
        ramp(to: rest, seconds: fallSeconds)
    }

    /// The noise-free curve at a time (µs since the start), drift included (kg).
    public func value(atMicros micros: Int64) -> Double {
        var level = Double(keyframes[keyframes.count - 1].kilograms)
        for index in 1..<max(keyframes.count, 1) where keyframes[index].micros >= micros {
            let a = keyframes[index - 1]
            let b = keyframes[index]
            if b.micros == a.micros {
                level = Double(b.kilograms)
            } else {
                let fraction = Double(micros - a.micros) / Double(b.micros - a.micros)
                level = Double(a.kilograms) + max(0, fraction) * (Double(b.kilograms) - Double(a.kilograms))
            }
            break
        }
        return level + driftKgPerSecond * Double(micros) / 1e6
    }

    /// Samples the signal at Progressor timing, from slot 0 at `originMicros` through ``endMicros``.
    ///
    /// - Parameter originMicros: Stream time of slot 0 (µs).
    /// - Returns: The samples (stream µs, kg).
    public func samples(originMicros: Int64 = 0) -> [ForceSample] {
        var generator = seed
        var result: [ForceSample] = []
        for micros in Self.slotTimes(through: endMicros) {
            var kg = value(atMicros: micros)
            if noiseKg > 0 {
                // SplitMix64: deterministic, platform-independent.
                generator &+= 0x9E37_79B9_7F4A_7C15
                var z = generator
                z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
                z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
                z ^= z >> 31
                let unit = Double(z >> 11) / Double(1 << 53)  // [0, 1)
                kg += (unit * 2 - 1) * Double(noiseKg)
            }
            result.append(ForceSample(micros: originMicros + micros, kilograms: Float(kg)))
        }
        return result
    }

    /// Progressor sample times from 0 through `endMicros` (µs): every 11.4 ms, skipping each 16th slot.
    public static func slotTimes(through endMicros: Int64) -> [Int64] {
        var times: [Int64] = []
        var slot: Int64 = 0
        while slot * tickMicros <= endMicros {
            if slot % slotsPerGap != slotsPerGap - 1 { times.append(slot * tickMicros) }
            slot += 1
        }
        return times
    }

    private static func micros(_ seconds: Double) -> Int64 { Int64((seconds * 1e6).rounded()) }
}
