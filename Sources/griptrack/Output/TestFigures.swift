import Foundation
import GripAnalysis
import GripStore

/// The figures `show` adds under a recording's summary (docs/metrics.md): MVC-7, the best 7 s mean of the whole trace,
/// and the fatigue index over its complete reps. Each is absent where the recording cannot give it.
struct TestFigures: Encodable {
    /// Best 7 s time-weighted mean (kg); absent for a recording shorter than 7 s of measured force.
    var mvc7Kg: Double?
    /// First to last complete rep peak, % of the first; absent under three complete reps.
    var fatigueIndexPercent: Double?

    init(efforts: [StoredEffort], samples: [StoredSample]) {
        let trace = samples.map { ForceSample(micros: $0.micros, kilograms: $0.kilograms) }
        mvc7Kg = SustainedForce.best(of: trace, windowMicros: 7_000_000)?.meanKg
        fatigueIndexPercent = FatigueIndex.percent(
            peaks: efforts.filter { !$0.isOpen && !$0.isOpenStart }.map(\.peakKilograms))
    }

    /// `MVC-7 (best 7 s mean) 21.3 kg, fatigue index 12 % (first to last complete rep peak)`, or nil.
    var text: String? {
        var parts: [String] = []
        if let mvc7Kg { parts.append("MVC-7 (best 7 s mean) \(Format.kg(mvc7Kg))") }
        if let fatigueIndexPercent {
            parts.append("fatigue index " + String(format: "%.0f %%", fatigueIndexPercent)
                + " (first to last complete rep peak)")
        }
        return parts.isEmpty ? nil : parts.joined(separator: ", ")
    }
}
