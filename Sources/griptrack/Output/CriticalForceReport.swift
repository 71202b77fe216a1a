import GripAnalysis
import GripStore

/// `griptrack show --critical-force`: a recording read as a 24 × 7:3 all-out test (docs/metrics.md).
struct CriticalForceReport: Encodable {
    var criticalForceKg: Double
    var wPrimeKgS: Double
    var cfOfPeak: Double
    var peakKg: Double
    var reps: Int
    var endRepFirst: Int
    var endRepLast: Int
    var endRepsAveraged: Int
    var repsLeftOut: Int
    /// W′ / CF (s).
    var wPrimeOverCfS: Double?
    /// CF as % of the athlete's body weight, and W′ per kg of body weight (kg·s / kg = s); absent without a body weight.
    var cfPercentBodyWeight: Double?
    var wPrimePerBodyWeightS: Double?

    /// - Parameter bodyWeightKg: The athlete's body weight when recorded.
    /// - Throws: ``CriticalForce/Problem`` when the efforts are not an all-out test.
    init(efforts: [StoredEffort], bodyWeightKg: Double? = nil) throws(CriticalForce.Problem) {
        let result = try CriticalForce(reps: efforts.map {
            CriticalForce.Rep(
                meanKg: $0.meanKilograms, peakKg: $0.peakKilograms, durationMicros: $0.durationMicros,
                impulseKgSeconds: $0.impulseKilogramSeconds, isComplete: !$0.isOpen && !$0.isOpenStart)
        })
        criticalForceKg = result.criticalForceKg
        wPrimeKgS = result.wPrimeKgSeconds
        cfOfPeak = result.fractionOfPeak
        peakKg = result.peakKg
        reps = result.reps
        endRepFirst = result.endReps.lowerBound
        endRepLast = result.endReps.upperBound
        endRepsAveraged = result.endRepsAveraged
        repsLeftOut = result.repsLeftOut
        wPrimeOverCfS = result.wPrimeOverCriticalForceSeconds
        cfPercentBodyWeight = BodyWeightShare.percent(result.criticalForceKg, bodyWeightKg: bodyWeightKg)
        wPrimePerBodyWeightS = BodyWeightShare.percent(result.wPrimeKgSeconds, bodyWeightKg: bodyWeightKg).map { $0 / 100 }
    }

    var text: String {
        var lines = [
            "Critical force: \(Format.kg(criticalForceKg)) (mean of reps \(endRepFirst)–\(endRepLast), "
                + "\(endRepsAveraged) averaged), \(Int((cfOfPeak * 100).rounded())) % of the test's peak "
                + "\(Format.kg(peakKg))",
            "W′: " + String(format: "%.1f kg·s", wPrimeKgS) + " (impulse above critical force)"
                + (wPrimeOverCfS.map { String(format: ", W′/CF %.1f s", $0) } ?? ""),
        ]
        if let cfPercentBodyWeight, let wPrimePerBodyWeightS {
            lines.append(String(
                format: "CF %.0f %% of body weight, W′ %.1f kg·s per kg of body weight", cfPercentBodyWeight,
                wPrimePerBodyWeightS))
        }
        if repsLeftOut > 0 {
            lines.append("\(repsLeftOut) rep\(repsLeftOut == 1 ? "" : "s") cut by the stream left out (not a whole contraction)")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
