/// Where a protocol run stands at a moment (`docs/protocols.md`, "Running a protocol"): what the screen shows and
/// when the bell rings. Pure: the caller passes the time since the run began.
public enum ProtocolCue: Sendable, Equatable {
    /// Before the first rep: seconds left, and who starts.
    case countdown(remainingMicros: Int64, firstHand: PlannedRep.Side)
    /// Pull: which rep, and how long is left of it (nil for a rep without a set duration).
    case hang(rep: PlannedRep, remainingMicros: Int64?)
    /// Rest before `next`: how long is left.
    case rest(next: PlannedRep, remainingMicros: Int64)
    /// Every rep's time is over.
    case done

    /// The countdown before the first rep (µs).
    public static let countdownMicros: Int64 = 5_000_000

    /// The cue `elapsedMicros` after the run began (the countdown first).
    ///
    /// A rep without a set duration (rfd, endurance) is cued as a hang until its rest is due: 1 s for an explosive
    /// pull; an endurance hold has no end the clock can know, so it stays a hang.
    public static func at(_ elapsedMicros: Int64, of plan: [PlannedRep], training: TrainingProtocol) -> ProtocolCue {
        guard let first = plan.first else { return .done }
        guard elapsedMicros >= countdownMicros else {
            return .countdown(remainingMicros: countdownMicros - elapsedMicros, firstHand: first.hand)
        }
        let time = elapsedMicros - countdownMicros
        for (index, rep) in plan.enumerated() {
            guard index + 1 < plan.count else {
                if let work = rep.workMicros {
                    return time < rep.startMicros + work ? .hang(rep: rep, remainingMicros: rep.startMicros + work - time) : .done
                }
                // An endurance hold lasts until failure; an explosive pull is cued for 1 s.
                if training.kind == .endurance || time < rep.startMicros + 1_000_000 {
                    return .hang(rep: rep, remainingMicros: nil)
                }
                return .done
            }
            let next = plan[index + 1]
            guard time < next.startMicros else { continue }
            let workEnd = rep.startMicros + (rep.workMicros ?? 1_000_000)
            if time < workEnd || (rep.workMicros == nil && training.kind == .endurance) {
                return .hang(rep: rep, remainingMicros: rep.workMicros.map { _ in workEnd - time })
            }
            return .rest(next: next, remainingMicros: next.startMicros - time)
        }
        return .done
    }

    /// Whether going from `self` to `later` is a phase change the bell marks (a hang starting or ending).
    public func ringsBell(before later: ProtocolCue) -> Bool {
        switch (self, later) {
        case (.countdown, .hang), (.rest, .hang), (.hang, .rest), (.hang, .done): true
        case (.hang(let a, _), .hang(let b, _)): a.number != b.number
        default: false
        }
    }
}
