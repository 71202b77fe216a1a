import Foundation
import GripAnalysis
import GripStore

/// `griptrack show --protocol P`: every planned rep of a protocol against the efforts pulled (docs/protocols.md).
struct ProtocolReport: Encodable {
    struct Rep: Encodable {
        var number: Int
        var set: Int
        var hand: String
        var status: String
        /// 1-based effort number, when matched.
        var effort: Int?
        var heldS: Double?
        var inBandPercent: Double?
    }

    var notation: String
    var kind: String
    var reps: [Rep]
    var done: Int
    var short: Int
    var missed: Int
    /// The band in kg, when the athlete's max is known.
    var bandLowKg: Double?
    var bandHighKg: Double?
    /// Why there is no time in band, when the protocol has a band.
    var inBandLeftOut: String?

    /// - Parameters:
    ///   - maxKg: The athlete's max for this hand and grip: the band is a percentage of it.
    ///   - firstHand: The recording's hand, when it is one hand.
    init(
        _ training: TrainingProtocol, notation: String, efforts: [StoredEffort], samples: [StoredSample], maxKg: Double?,
        firstHand: PlannedRep.Side
    ) {
        let trace = samples.map { ForceSample(micros: $0.micros, kilograms: $0.kilograms) }
        let performed = efforts.map {
            PerformedRep(startMicros: $0.startMicros, endMicros: $0.endMicros, meanKg: $0.meanKilograms, peakKg: $0.peakKilograms)
        }
        let outcomes = RepMatcher.match(training, performed: performed, trace: trace, maxKg: maxKg, firstHand: firstHand)
        self.notation = notation
        kind = training.kind.rawValue
        reps = outcomes.map { outcome in
            Rep(number: outcome.planned.number, set: outcome.planned.set, hand: outcome.planned.hand.rawValue,
                status: outcome.status.rawValue, effort: outcome.performedIndex.map { $0 + 1 },
                heldS: outcome.heldMicros.map { Double($0) / 1e6 }, inBandPercent: outcome.inBandFraction.map { $0 * 100 })
        }
        done = outcomes.filter { $0.status == .done }.count
        short = outcomes.filter { $0.status == .short }.count
        missed = outcomes.filter { $0.status == .missed }.count
        if let band = training.targetPercent {
            if let maxKg {
                bandLowKg = maxKg * band.lowerBound / 100
                bandHighKg = maxKg * band.upperBound / 100
            } else {
                inBandLeftOut = "time in band not computed: give the athlete's max for this hand and grip (--max-kg)"
            }
        }
    }

    var text: String {
        var lines = ["Protocol \(notation): \(done) done, \(short) short, \(missed) missed of \(reps.count) reps"]
        if let bandLowKg, let bandHighKg {
            lines[0] += String(format: "; target band %.1f–%.1f kg", bandLowKg, bandHighKg)
        }
        if let inBandLeftOut { lines.append(inBandLeftOut) }
        lines.append("  rep  set  hand   status  effort    held  in band")
        for rep in reps {
            var line = String(rep.number).leftPadded(5) + String(rep.set).leftPadded(5) + "  " + rep.hand.padded(5)
                + rep.status.leftPadded(8) + (rep.effort.map(String.init) ?? "—").leftPadded(8)
            line += (rep.heldS.map { String(format: "%.1f s", $0) } ?? "—").leftPadded(8)
            line += (rep.inBandPercent.map { String(format: "%.0f %%", $0) } ?? "—").leftPadded(9)
            lines.append(line)
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

extension String {
    fileprivate func padded(_ width: Int) -> String { count >= width ? self : self + String(repeating: " ", count: width - count) }
}
