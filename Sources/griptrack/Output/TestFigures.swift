import Foundation
import GripAnalysis
import GripStore
import GripWire

/// The figures `show` adds under a recording's summary (docs/metrics.md): MVC-7, the best 7 s mean of a hold,
/// the fatigue index over its complete reps, and RFD over 100 and 200 ms from onset. Each is absent where the
/// recording cannot give it; windowed RFD says why when the device is too slow for it.
struct TestFigures: Encodable {
    /// MVC: the highest complete or open effort peak, single-sample spikes left out (kg); absent without efforts.
    var mvcKg: Double?
    /// MVC and MVC-7 as % of the athlete's body weight; absent without a body weight.
    var mvcPercentBodyWeight: Double?
    var mvc7PercentBodyWeight: Double?
    /// Best 7 s time-weighted mean inside a hold (kg); absent when no pull was held for 7 s.
    var mvc7Kg: Double?
    /// Why there is no MVC-7 although the recording has efforts.
    var mvc7LeftOut: String?
    /// First to last complete rep peak, % of the first; absent under three complete reps.
    var fatigueIndexPercent: Double?
    /// The highest RFD over 100 ms and 200 ms from an effort's onset (kg/s); absent when no effort has one.
    var bestRfd100msKgS: Double?
    var bestRfd200msKgS: Double?
    /// Why there are no windowed RFDs at all, when the device's sample rate is too low for them.
    var rfdWindowsLeftOut: String?
    /// Why the efforts have no RFD 20–80 %, when the device's sample rate is too low for it.
    var rfd2080LeftOut: String?
    /// Why the efforts have no RFD and time to peak, when the device's values are too coarse (the Climbro's kg).
    var timingLeftOut: String?
    /// Per effort, in the efforts' order: RFD over 100 ms and 200 ms from onset (nil where not defined).
    private(set) var effortRfds: [(ms100: Double?, ms200: Double?)] = []

    private enum CodingKeys: String, CodingKey {
        case mvcKg, mvcPercentBodyWeight, mvc7PercentBodyWeight, mvc7Kg, mvc7LeftOut, fatigueIndexPercent, rfdWindowsLeftOut
        case timingLeftOut
        case rfd2080LeftOut = "rfd_2080_left_out"
        // Spelled out: the encoder's snake case would write `rfd100ms`.
        case bestRfd100msKgS = "best_rfd_100ms_kg_s", bestRfd200msKgS = "best_rfd_200ms_kg_s"
    }

    /// - Parameters:
    ///   - bodyWeightKg: The athlete's body weight when recorded, for the % of body weight figures.
    ///   - profile: The recording's device profile (`climbro`), whose resolution may rule out RFD and time to peak.
    init(efforts: [StoredEffort], samples: [StoredSample], bodyWeightKg: Double? = nil, profile: String? = nil) {
        if let device = profile.flatMap({ DeviceProfiles.named($0) }), !efforts.isEmpty {
            timingLeftOut = EffortMetrics.timingLeftOut(resolutionKg: device.resolutionKg, device: device.name)
        }
        let trace = samples.map { ForceSample(micros: $0.micros, kilograms: $0.kilograms) }
        mvc7Kg = MaximumSustainedForce.best(
            of: trace, efforts: efforts.map { (startMicros: $0.startMicros, endMicros: $0.endMicros) })?.meanKg
        if mvc7Kg == nil, !efforts.isEmpty { mvc7LeftOut = MaximumSustainedForce.noHoldReason }
        mvcKg = efforts.map(\.peakKilograms).max()
        mvcPercentBodyWeight = BodyWeightShare.percent(mvcKg, bodyWeightKg: bodyWeightKg)
        mvc7PercentBodyWeight = BodyWeightShare.percent(mvc7Kg, bodyWeightKg: bodyWeightKg)
        fatigueIndexPercent = FatigueIndex.percent(
            peaks: efforts.filter { !$0.isOpen && !$0.isOpenStart }.map(\.peakKilograms))
        guard let interval = WindowedRFD.typicalIntervalMicros(of: trace), !efforts.isEmpty else { return }
        // Whole-kilogram steps: no RFD of any kind, whatever the rate.
        if let timingLeftOut {
            rfdWindowsLeftOut = timingLeftOut
            effortRfds = efforts.map { _ in (nil, nil) }
            return
        }
        if interval > EffortMetrics.rfdLongestIntervalMicros {
            rfd2080LeftOut = String(
                format: "RFD 20–80 %% not computed: the device sends %.0f samples a second; it needs %.0f",
                1e6 / Double(interval), 1e6 / Double(EffortMetrics.rfdLongestIntervalMicros))
        }
        let leftOut = "RFD over %@ not computed: the device sends %.0f samples a second; a %@ window needs %.0f"
        if case .tooSlow(let rate, let needed) = WindowedRFD.support(intervalMicros: interval, windowMicros: 200_000) {
            rfdWindowsLeftOut = String(format: leftOut, "100 and 200 ms", rate, "200 ms", needed)
            return
        }
        if case .tooSlow(let rate, let needed) = WindowedRFD.support(intervalMicros: interval, windowMicros: 100_000) {
            rfdWindowsLeftOut = String(format: leftOut, "100 ms", rate, "100 ms", needed)
        }
        let supports100 = rfdWindowsLeftOut == nil
        effortRfds = efforts.map { effort in
            // An effort already under way when the stream began has no onset to measure from.
            guard !effort.isOpenStart else { return (nil, nil) }
            let onset = effort.startMicros
            return (supports100 ? WindowedRFD.rfd(of: trace, onsetMicros: onset, windowMicros: 100_000) : nil,
                    WindowedRFD.rfd(of: trace, onsetMicros: onset, windowMicros: 200_000))
        }
        bestRfd100msKgS = effortRfds.compactMap(\.ms100).max()
        bestRfd200msKgS = effortRfds.compactMap(\.ms200).max()
    }

    /// `MVC-7 (best 7 s mean) 21.3 kg, fatigue index 12 % (first to last complete rep peak)`, or nil.
    var text: String? {
        var parts: [String] = []
        if let mvcPercentBodyWeight {
            parts.append("MVC \(Format.kg(mvcKg)) (" + String(format: "%.0f %%", mvcPercentBodyWeight) + " of body weight)")
        }
        if let mvc7Kg {
            var text = "MVC-7 (best 7 s mean) \(Format.kg(mvc7Kg))"
            if let mvc7PercentBodyWeight { text += " (" + String(format: "%.0f %%", mvc7PercentBodyWeight) + " of body weight)" }
            parts.append(text)
        }
        if let fatigueIndexPercent {
            parts.append("fatigue index " + String(format: "%.0f %%", fatigueIndexPercent)
                + " (first to last complete rep peak)")
        }
        if let bestRfd100msKgS { parts.append(String(format: "best RFD 0–100 ms %.0f kg/s", bestRfd100msKgS)) }
        if let bestRfd200msKgS { parts.append(String(format: "0–200 ms %.0f kg/s", bestRfd200msKgS)) }
        var lines = parts.isEmpty ? [] : [parts.joined(separator: ", ")]
        if let mvc7LeftOut { lines.append(mvc7LeftOut) }
        if let timingLeftOut {
            lines.append(timingLeftOut)
        } else {
            if let rfd2080LeftOut { lines.append(rfd2080LeftOut) }
            if let rfdWindowsLeftOut { lines.append(rfdWindowsLeftOut) }
        }
        return lines.isEmpty ? nil : lines.joined(separator: "\n")
    }
}
