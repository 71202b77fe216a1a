import Foundation
import GripAnalysis

/// A protocol run as the web app's training screen follows it (`GET /api/protocols/plan`, docs/web.md, "Training"):
/// the protocol, every planned rep, and the phases ``ProtocolCue`` goes through, planned here by the one engine so
/// the page never parses notation or re-derives timing. Times are seconds from the run's start (the countdown
/// first).
package struct TrainingPlanJSON: Encodable, Equatable, Sendable {
    /// One planned rep.
    package struct Rep: Encodable, Equatable, Sendable {
        /// 1-based across sets.
        package var number: Int
        package var set: Int
        /// 1-based within its set.
        package var rep: Int
        /// When it starts, from the run's start (after the countdown).
        package var startS: Double
        /// How long the hang lasts; absent for "as fast as possible" (rfd) or "to failure" (endurance).
        package var hangS: Double?
        /// The rest after it: the rep rest, the set rest after a set's last rep, 0 after the last rep.
        package var restS: Double
        package var hand: String
        /// The target band as % of the athlete's max; absent for all-out tests.
        package var bandPercent: [Double]?
    }

    /// One stretch of the run with the same cue.
    package struct Phase: Encodable, Equatable, Sendable {
        /// `countdown`, `hang`, `rest` or `done`.
        package var phase: String
        package var fromS: Double
        /// Absent for `done` and for a hold that lasts until failure.
        package var toS: Double?
        /// The rep hanging (`hang`) or coming next (`countdown`, `rest`).
        package var rep: Int?
    }

    /// The built-in's name, when the text named one.
    package var name: String?
    /// The notation the plan was read from (a built-in's own notation for its name).
    package var notation: String
    package var kind: String
    package var reps: Int
    package var sets: Int
    package var workS: Double?
    package var restS: Double
    package var setRestS: Double
    package var targetPercent: [Double]?
    package var alternate: Bool
    package var firstHand: String
    /// The countdown before the first rep (``ProtocolCue/countdownMicros``).
    package var countdownS: Double
    /// How far from its expected start an effort may begin and still be the rep (``RepMatcher/tolerance(for:)``).
    package var startToleranceS: Double
    /// How early a rep may end and still be held (``RepMatcher/timingToleranceMicros``).
    package var shortToleranceS: Double
    /// What the end-of-set summary averages over the matched reps: `peak_kg` for all-out tests, `mean_kg` for
    /// tests held in a band.
    package var summaryFigure: String
    package var planned: [Rep]
    package var phases: [Phase]

    /// The longest text `resolve` reads: the longest useful notation is a few dozen characters.
    package static let textLimit = 200

    /// A built-in's name or notation, planned.
    /// - Parameters:
    ///   - text: `repeaters`, or `repeaters 6x 7:3 @80%`.
    ///   - hand: Who starts, `left` or `right` (nil: right); `alternate` gives the other hand every second rep.
    /// - Returns: The plan, or why it cannot be made: the engine's `column N: …`, the length limit, the hand.
    package static func resolve(_ text: String, firstHand hand: String?) -> Result<TrainingPlanJSON, TrainingPlanProblem> {
        guard text.count <= textLimit else {
            return .failure(TrainingPlanProblem(message: "protocol: at most \(textLimit) characters, got \(text.count)"))
        }
        var firstHand = PlannedRep.Side.right
        if let hand {
            guard let chosen = PlannedRep.Side(rawValue: hand) else {
                return .failure(TrainingPlanProblem(message: "hand is left or right, got \(hand.prefix(20))"))
            }
            firstHand = chosen
        }
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let builtIn = BuiltInProtocols.all.first(where: { $0.name == trimmed.lowercased() }),
            let training = try? ProtocolNotation.parse(builtIn.notation)
        {
            return .success(TrainingPlanJSON(name: builtIn.name, notation: builtIn.notation, training: training, firstHand: firstHand))
        }
        do throws(ProtocolNotationError) {
            let training = try ProtocolNotation.parse(text)
            return .success(TrainingPlanJSON(name: nil, notation: trimmed, training: training, firstHand: firstHand))
        } catch {
            return .failure(TrainingPlanProblem(message: "protocol: \(error.description)"))
        }
    }

    /// - Parameters:
    ///   - name: The built-in's name, if any.
    ///   - notation: The notation `training` was read from.
    ///   - training: The protocol.
    ///   - firstHand: Who starts.
    package init(name: String?, notation: String, training: TrainingProtocol, firstHand: PlannedRep.Side) {
        func seconds(_ micros: Int64) -> Double { Double(micros) / 1_000_000 }
        self.name = name
        self.notation = notation
        kind = training.kind.rawValue
        reps = training.reps
        sets = training.sets
        workS = training.workMicros.map(seconds)
        restS = seconds(training.restMicros)
        setRestS = seconds(training.setRestMicros)
        targetPercent = training.targetPercent.map { [$0.lowerBound, $0.upperBound] }
        alternate = training.alternate
        self.firstHand = firstHand.rawValue
        countdownS = seconds(ProtocolCue.countdownMicros)
        startToleranceS = seconds(RepMatcher.tolerance(for: training))
        shortToleranceS = seconds(RepMatcher.timingToleranceMicros)
        summaryFigure = training.targetPercent == nil ? "peak_kg" : "mean_kg"
        let plan = training.plan(firstHand: firstHand)
        planned = plan.enumerated().map { index, rep in
            let next = index + 1 < plan.count ? plan[index + 1].startMicros : nil
            let rest = next.map { $0 - rep.startMicros - (rep.workMicros ?? 1_000_000) } ?? 0
            return Rep(
                number: rep.number, set: rep.set, rep: rep.repInSet, startS: seconds(rep.startMicros),
                hangS: rep.workMicros.map(seconds), restS: seconds(max(0, rest)), hand: rep.hand.rawValue,
                bandPercent: training.targetPercent.map { [$0.lowerBound, $0.upperBound] })
        }
        phases = Self.phases(plan, training: training).map { phase in
            Phase(phase: phase.name, fromS: seconds(phase.from), toS: phase.to.map(seconds), rep: phase.rep)
        }
    }

    /// ``ProtocolCue/at(_:of:training:)`` as stretches (µs from the run's start): the same rules, written out once so
    /// a page can look a moment up instead of re-deriving them.
    package static func phases(_ plan: [PlannedRep], training: TrainingProtocol) -> [(name: String, from: Int64, to: Int64?, rep: Int?)] {
        let countdown = ProtocolCue.countdownMicros
        guard let first = plan.first else { return [("done", 0, nil, nil)] }
        var phases: [(name: String, from: Int64, to: Int64?, rep: Int?)] = [("countdown", 0, countdown, first.number)]
        func add(_ name: String, _ from: Int64, _ to: Int64?, _ rep: Int?) {
            if let to, to <= from { return }  // a rest of 0 s: no stretch
            phases.append((name, countdown + from, to.map { countdown + $0 }, rep))
        }
        for (index, rep) in plan.enumerated() {
            let holdsToFailure = rep.workMicros == nil && training.kind == .endurance
            guard index + 1 < plan.count else {
                if holdsToFailure {
                    add("hang", rep.startMicros, nil, rep.number)
                } else {
                    let end = rep.startMicros + (rep.workMicros ?? 1_000_000)
                    add("hang", rep.startMicros, end, rep.number)
                    add("done", end, nil, nil)
                }
                break
            }
            let next = plan[index + 1]
            let hangEnd = holdsToFailure ? next.startMicros : min(next.startMicros, rep.startMicros + (rep.workMicros ?? 1_000_000))
            add("hang", rep.startMicros, hangEnd, rep.number)
            add("rest", hangEnd, next.startMicros, next.number)
        }
        return phases
    }
}
