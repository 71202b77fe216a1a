import Foundation
import GripAnalysis

/// A protocol `griptrack record --protocol` runs: its plan and band, and the cue line for a moment of it.
struct ProtocolRun: Equatable, Sendable {
    var name: String
    var training: TrainingProtocol
    var plan: [PlannedRep]
    /// The target band in kg, when the protocol has one and the athlete's max was given.
    var bandKg: ClosedRange<Double>?

    init(name: String, training: TrainingProtocol, maxKg: Double?, firstHand: PlannedRep.Side) {
        self.name = name
        self.training = training
        plan = training.plan(firstHand: firstHand)
        bandKg = training.targetPercent.flatMap { band in
            maxKg.map { ($0 * band.lowerBound / 100)...($0 * band.upperBound / 100) }
        }
    }

    /// The cue `elapsed` seconds into the stream.
    func cue(elapsed: Double) -> ProtocolCue {
        ProtocolCue.at(Int64((elapsed * 1_000_000).rounded()), of: plan, training: training)
    }

    /// Which stretch of the run a cue belongs to: a new one starts the countdown, a hang, a rest or the end.
    static func phase(of cue: ProtocolCue) -> String {
        switch cue {
        case .countdown: "countdown"
        case .hang(let rep, _): "hang \(rep.number)"
        case .rest(let next, _): "rest \(next.number)"
        case .done: "done"
        }
    }

    /// For the countdown and a rest: the time left and the whole phase's length (µs), which the spoken count needs.
    func countdown(_ cue: ProtocolCue) -> (remaining: Int64, length: Int64)? {
        switch cue {
        case .countdown(let remaining, _):
            return (remaining, ProtocolCue.countdownMicros)
        case .rest(let next, let remaining):
            guard next.number >= 2 else { return nil }
            let before = plan[next.number - 2]
            return (remaining, next.startMicros - before.startMicros - (before.workMicros ?? 1_000_000))
        case .hang, .done:
            return nil
        }
    }

    /// `HANG  rep 2/6 · 4 s left · right hand · band 20.2–22.9 kg`.
    func text(_ cue: ProtocolCue) -> String {
        func seconds(_ micros: Int64) -> String { "\((micros + 999_999) / 1_000_000) s" }
        func rep(_ rep: PlannedRep) -> String {
            var text = "rep \(rep.repInSet)/\(training.reps)"
            if training.sets > 1 { text += " of set \(rep.set)/\(training.sets)" }
            return text
        }
        switch cue {
        case .countdown(let remaining, let hand):
            return "GET READY  \(seconds(remaining)) · \(hand.rawValue) hand first"
        case .hang(let planned, let remaining):
            var parts = ["HANG  " + rep(planned)]
            if let remaining { parts.append(seconds(remaining) + " left") }
            if training.alternate { parts.append("\(planned.hand.rawValue) hand") }
            if let bandKg { parts.append(String(format: "band %.1f–%.1f kg", bandKg.lowerBound, bandKg.upperBound)) }
            return parts.joined(separator: " · ")
        case .rest(let next, let remaining):
            var text = "REST  \(seconds(remaining)) · next " + rep(next)
            if training.alternate { text += " · \(next.hand.rawValue) hand" }
            return text
        case .done:
            return "DONE  every rep's time is over · Ctrl-C stops the recording"
        }
    }
}
