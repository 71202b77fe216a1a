extension ProtocolNotation {
    /// What the words said, each at most once, with the word that said it.
    struct Terms {
        var reps: Int?
        var sets: Int?
        var workRest: (work: Double, rest: Double)?
        var work: Double?
        var rest: Double?
        var target: ClosedRange<Double>?
        var alternate: Bool?
        var columns: [String: Int] = [:]

        mutating func set<Value>(
            _ path: WritableKeyPath<Terms, Value?>, _ value: Value, _ name: String, at word: Word
        ) throws(ProtocolNotationError) {
            if let earlier = columns[name] {
                throw ProtocolNotationError(column: word.column, message: "\(name) is given twice (first at column \(earlier))")
            }
            columns[name] = word.column
            self[keyPath: path] = value
        }

        /// The protocol, with each kind's defaults for what the words left out.
        func protocolFor(_ kind: ProtocolKind, words: [Word]) throws(ProtocolNotationError) -> TrainingProtocol {
            func refuse(_ name: String, _ why: String) throws(ProtocolNotationError) {
                if let column = columns[name] { throw ProtocolNotationError(column: column, message: why) }
            }
            if workRest != nil { try refuse("a rep's duration", "give either W:R or a rep's duration, not both") }
            let micros = { (seconds: Double) in Int64((seconds * 1_000_000).rounded()) }
            switch kind {
            case .repeaters:
                let (work, repRest) = workRest ?? (work ?? 7, 3)
                return TrainingProtocol(
                    kind: kind, reps: reps ?? 6, sets: sets ?? 1, workMicros: micros(work), restMicros: micros(repRest),
                    setRestMicros: micros(rest ?? 180), targetPercent: target, alternate: alternate ?? false)
            case .max:
                try refuse("a target band", "max pulls are all-out, so they take no target band")
                return TrainingProtocol(
                    kind: kind, reps: reps ?? 3, sets: sets ?? 1, workMicros: micros(workRest?.work ?? work ?? 10),
                    restMicros: micros(workRest?.rest ?? rest ?? 180), setRestMicros: micros(rest ?? 180),
                    targetPercent: nil, alternate: alternate ?? false)
            case .cf:
                try refuse("a target band", "cf is all-out: every rep as hard as possible, so it takes no target band")
                return TrainingProtocol(
                    kind: kind, reps: reps ?? 24, sets: 1, workMicros: micros(workRest?.work ?? 7),
                    restMicros: micros(workRest?.rest ?? 3), alternate: alternate ?? false)
            case .rfd:
                try refuse("a target band", "rfd pulls are explosive and all-out, so they take no target band")
                return TrainingProtocol(
                    kind: kind, reps: reps ?? 3, sets: sets ?? 1, workMicros: nil, restMicros: micros(rest ?? 60),
                    setRestMicros: micros(rest ?? 60), alternate: alternate ?? false)
            case .endurance:
                try refuse("a rep's duration", "an endurance hold lasts until failure; leave the duration out")
                return TrainingProtocol(
                    kind: kind, reps: reps ?? 1, sets: sets ?? 1, workMicros: nil, restMicros: micros(rest ?? 180),
                    setRestMicros: micros(rest ?? 180), targetPercent: target ?? 40...80, alternate: alternate ?? false)
            }
        }
    }
}
