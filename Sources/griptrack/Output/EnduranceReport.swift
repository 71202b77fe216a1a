import GripAnalysis
import GripStore

/// `griptrack show --endurance`: the recording read as one hold to failure (docs/metrics.md, "Endurance").
struct EnduranceReport: Encodable {
    var peakKg: Double
    /// Onset to failure (s); absent when the hold had not failed when the recording ended.
    var timeToFailureS: Double?

    /// Nil for a recording without efforts.
    init?(efforts: [StoredEffort], samples: [StoredSample]) {
        guard let onset = efforts.first?.startMicros,
              let hold = EnduranceHold(
                trace: samples.map { ForceSample(micros: $0.micros, kilograms: $0.kilograms) }, onsetMicros: onset)
        else { return nil }
        peakKg = hold.peakKg
        timeToFailureS = hold.timeToFailureMicros.map { Double($0) / 1e6 }
    }

    var text: String {
        guard let timeToFailureS else {
            return "Endurance: still holding when the recording ended (peak \(Format.kg(peakKg)))\n"
        }
        return "Endurance: time to failure " + String(format: "%.1f s", timeToFailureS)
            + " (force under 20 % of the hold's peak \(Format.kg(peakKg)) for more than 1 s)\n"
    }
}
