/// What the simulated hand does to the device over one stretch of streaming: a resting baseline (tare offset
/// plus drift) and a list of pulls.
///
/// The shape of a pull follows public Progressor traces in general terms (`docs/devices.md` §4): a smooth rise over
/// a few hundred ms, a slightly fading hold, a quicker release.
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
    public var pulls: [Pull]

    public init(baseline: Double = 0.2, driftPerMinute: Double = 0, noise: Double = 0.04, pulls: [Pull] = []) {
        self.baseline = baseline
        self.driftPerMinute = driftPerMinute
        self.noise = noise
        self.pulls = pulls
    }

    /// Noise-free force `t` seconds into the stretch (kg).
    func force(at t: Double) -> Double {
        pulls.reduce(baseline + driftPerMinute * t / 60) { $0 + $1.force(at: t) }
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
