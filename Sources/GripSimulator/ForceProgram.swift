import Foundation

/// What the simulated hand does to the device over one stretch of streaming: a resting baseline (tare offset
/// plus drift) and a list of pulls.
///
/// The shape of a pull follows public Progressor traces in general terms (`docs/segmentation.md`): a smooth rise
/// over a few hundred ms, a slightly fading hold, a quicker release. A hand is not a dead weight: with
/// ``tremor`` set, force under load wanders slowly and shakes (as real holds do, ±0.5–1 kg at 7 kg), while a
/// resting device shows only the sensor's ``noise``.
public struct ForceProgram: Sendable {
    /// One pull, times in seconds from the start of the stretch.
    public struct Pull: Sendable {
        public var start: Double
        public var rise: Double
        public var hold: Double
        public var fall: Double
        /// Force above the baseline at the top of the rise (kg).
        public var peak: Double
        /// Fraction of the peak lost by the end of the hold (fatigue).
        public var fade: Double

        public init(start: Double, rise: Double = 0.35, hold: Double, fall: Double = 0.25, peak: Double, fade: Double = 0.08) {
            self.start = start
            self.rise = rise
            self.hold = hold
            self.fall = fall
            self.peak = peak
            self.fade = fade
        }

        /// Fraction of the peak this pull adds `t` seconds into the stretch (0 outside it).
        func loadFraction(at t: Double) -> Double { peak > 0 ? force(at: t) / peak : 0 }

        /// Force above baseline `t` seconds into the stretch.
        func force(at t: Double) -> Double {
            let local = t - start
            guard local > 0, local < rise + hold + fall else { return 0 }
            if local < rise { return peak * smoothstep(local / rise) }
            if local < rise + hold { return peak * (1 - fade * (local - rise) / max(hold, 1e-9)) }
            let top = peak * (1 - fade)
            return top * (1 - smoothstep((local - rise - hold) / fall))
        }
    }

    /// Resting force at the start of the stretch (kg): the tare offset or a pre-load.
    public var baseline: Double
    /// Baseline drift (kg per minute).
    public var driftPerMinute: Double
    /// Standard deviation of the sensor noise (kg).
    public var noise: Double
    /// Amplitude of a hand's wander and tremor under full load (kg), scaled by how loaded the pull is; 0 (the
    /// default) keeps older programs' output unchanged.
    public var tremor: Double
    public var pulls: [Pull]

    public init(
        baseline: Double = 0.2, driftPerMinute: Double = 0, noise: Double = 0.04, tremor: Double = 0,
        pulls: [Pull] = []
    ) {
        self.baseline = baseline
        self.driftPerMinute = driftPerMinute
        self.noise = noise
        self.tremor = tremor
        self.pulls = pulls
    }

    /// Force `t` seconds into the stretch before sensor noise (kg).
    func force(at t: Double) -> Double {
        var total = baseline + driftPerMinute * t / 60
        for pull in pulls {
            total += pull.force(at: t)
            if tremor > 0 {
                // Deterministic, so a capture renders the same bytes everywhere: a slow wander, a faster sway
                // and physiological tremor (≈ 8–9 Hz), each with a phase of its own per pull.
                let phase = pull.start * 1.37
                let shake = 0.55 * sin(2 * .pi * 0.45 * t + phase) + 0.3 * sin(2 * .pi * 1.7 * t + 2 * phase)
                    + 0.15 * sin(2 * .pi * 8.5 * t + 3 * phase)
                total += tremor * pull.loadFraction(at: t) * shake
            }
        }
        return total
    }

    /// Pulls at a fixed cadence: `count` pulls of `work` seconds, `rest` seconds apart, starting at `start`.
    public static func repeaters(
        count: Int, start: Double, work: Double, rest: Double, peak: Double, fadePerRep: Double = 0.02
    ) -> [Pull] {
        (0..<count).map { index in
            Pull(start: start + Double(index) * (work + rest), rise: 0.3, hold: work - 0.55, fall: 0.25,
                 peak: peak * (1 - fadePerRep * Double(index)), fade: 0.06)
        }
    }
}

private func smoothstep(_ x: Double) -> Double {
    let clamped = min(max(x, 0), 1)
    return clamped * clamped * (3 - 2 * clamped)
}
