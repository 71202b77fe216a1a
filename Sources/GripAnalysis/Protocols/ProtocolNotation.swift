/// The protocol notation of `docs/protocols.md`: a kind, then words in any order.
///
/// ```
/// repeaters 6x 7:3 @80%            six 7 s hangs, 3 s apart, at 75–85 % of max
/// repeaters 6x 7:3 3 sets rest 180s @70-80%
/// max 3x 10s rest 180s alternate   three 10 s maximal pulls per hand, hands taking turns
/// cf 24x 7:3                       the all-out critical-force test
/// rfd 3x rest 60s                  three explosive pulls, a minute apart
/// endurance @40-80%                one hold in the band until failure
/// ```
///
/// `Nx` is reps per set, `N sets` sets, `W:R` work and rest in seconds, `Ds` / `Dm` a rep's duration, `rest D` the
/// rest between reps (between sets when `W:R` gives the rep rest), `@P%` a band of P ± 5 % of max, `@L-H%` a band,
/// `alternate` hands taking turns. Pure.
public enum ProtocolNotation {
    /// The band `@P%` stands for: P ± this many percentage points.
    public static let singleTargetHalfWidth = 5.0
    static let repLimit = 1...100
    static let setLimit = 1...20
    static let workLimitSeconds = 0.5...600.0
    static let restLimitSeconds = 0.0...3600.0
    static let percentLimit = 1.0...150.0

    /// Reads one protocol.
    ///
    /// - Parameter text: e.g. `repeaters 6x 7:3 @80%`.
    /// - Throws: ``ProtocolNotationError`` naming the column of the first word it cannot use.
    public static func parse(_ text: String) throws(ProtocolNotationError) -> TrainingProtocol {
        let words = Self.words(text)
        guard let first = words.first else {
            throw ProtocolNotationError(column: 1, message: "empty: start with a kind (\(kinds))")
        }
        guard let kind = ProtocolKind(rawValue: first.text.lowercased()) else {
            throw ProtocolNotationError(column: first.column, message: "\"\(first.text)\" is not a kind; expected \(kinds)")
        }
        var terms = Terms()
        var index = 1
        while index < words.count {
            let word = words[index]
            let lower = word.text.lowercased()
            let next = index + 1 < words.count ? words[index + 1] : nil
            if lower == "rest" {
                guard let next else {
                    throw ProtocolNotationError(column: word.column, message: "rest needs a duration after it, e.g. rest 180s")
                }
                try terms.set(\.rest, seconds(next, limit: restLimitSeconds, what: "rest"), "rest", at: word)
                index += 2
                continue
            }
            if let count = Int(lower), let next, ["sets", "set"].contains(next.text.lowercased()) {
                try check(count, in: setLimit, "sets", at: word)
                try terms.set(\.sets, count, "sets", at: word)
                index += 2
                continue
            }
            if lower == "alternate" {
                try terms.set(\.alternate, true, "alternate", at: word)
            } else if lower.hasSuffix("x"), let count = Int(lower.dropLast()) {
                try check(count, in: repLimit, "reps", at: word)
                try terms.set(\.reps, count, "reps", at: word)
            } else if lower.contains(":") {
                let parts = lower.split(separator: ":", omittingEmptySubsequences: false)
                guard parts.count == 2, let work = Double(parts[0]), let rest = Double(parts[1]) else {
                    throw ProtocolNotationError(
                        column: word.column, message: "\"\(word.text)\" is not work:rest; write seconds, e.g. 7:3")
                }
                try check(work, in: workLimitSeconds, "work", unit: "s", at: word)
                try check(rest, in: restLimitSeconds, "rest", unit: "s", at: word)
                try terms.set(\.workRest, (work, rest), "work:rest", at: word)
            } else if lower.hasPrefix("@") {
                try terms.set(\.target, band(word), "a target band", at: word)
            } else if lower.first?.isNumber == true, lower.contains("-") || lower.contains("/") {
                throw ProtocolNotationError(
                    column: word.column, message: "\"\(word.text)\": write work and rest with a colon, e.g. 7:3")
            } else if lower.first?.isNumber == true {
                try terms.set(\.work, seconds(word, limit: workLimitSeconds, what: "work"), "a rep's duration", at: word)
            } else {
                throw ProtocolNotationError(
                    column: word.column,
                    message: "\"\(word.text)\" is not understood; expected Nx, N sets, W:R, a duration (10s, 2m), "
                        + "rest D, @P% or @L-H%, alternate")
            }
            index += 1
        }
        return try terms.protocolFor(kind, words: words)
    }

    static let kinds = ProtocolKind.allCases.map(\.rawValue).joined(separator: ", ")

    /// A word of the notation and its 1-based column.
    struct Word {
        var text: String
        var column: Int
    }

    static func words(_ text: String) -> [Word] {
        var words: [Word] = []
        var current = ""
        var start = 0
        for (offset, character) in text.enumerated() {
            if character.isWhitespace {
                if !current.isEmpty { words.append(Word(text: current, column: start + 1)) }
                current = ""
            } else {
                if current.isEmpty { start = offset }
                current.append(character)
            }
        }
        if !current.isEmpty { words.append(Word(text: current, column: start + 1)) }
        return words
    }

    /// `10s`, `2m`, `1.5s`.
    static func seconds(_ word: Word, limit: ClosedRange<Double>, what: String) throws(ProtocolNotationError) -> Double {
        let lower = word.text.lowercased()
        let value: Double?
        if lower.hasSuffix("s") {
            value = Double(lower.dropLast())
        } else if lower.hasSuffix("m") {
            value = Double(lower.dropLast()).map { $0 * 60 }
        } else {
            value = nil
        }
        guard let value else {
            throw ProtocolNotationError(
                column: word.column, message: "\"\(word.text)\" is not a duration; write seconds or minutes, e.g. 10s or 3m")
        }
        try check(value, in: limit, what, unit: "s", at: word)
        return value
    }

    /// `@80%` (80 ± 5 %) or `@40-80%`.
    static func band(_ word: Word) throws(ProtocolNotationError) -> ClosedRange<Double> {
        let body = word.text.dropFirst()
        guard body.hasSuffix("%") else {
            throw ProtocolNotationError(column: word.column, message: "\"\(word.text)\" needs a % sign, e.g. @80% or @40-80%")
        }
        let numbers = body.dropLast().split(separator: "-", omittingEmptySubsequences: false).map { Double($0) }
        guard (1...2).contains(numbers.count), numbers.allSatisfy({ $0 != nil }) else {
            throw ProtocolNotationError(column: word.column, message: "\"\(word.text)\" is not a target; write @80% or @40-80%")
        }
        let values = numbers.compactMap { $0 }
        for value in values { try check(value, in: percentLimit, "a target", unit: "%", at: word) }
        if values.count == 1 {
            return max(0, values[0] - singleTargetHalfWidth)...(values[0] + singleTargetHalfWidth)
        }
        guard values[0] < values[1] else {
            throw ProtocolNotationError(
                column: word.column, message: "\"\(word.text)\": the band's low end must be below its high end")
        }
        return values[0]...values[1]
    }

    static func check(_ value: Int, in limit: ClosedRange<Int>, _ what: String, at word: Word) throws(ProtocolNotationError) {
        guard limit.contains(value) else {
            throw ProtocolNotationError(
                column: word.column, message: "\(value) \(what) is outside \(limit.lowerBound)–\(limit.upperBound)")
        }
    }

    static func check(
        _ value: Double, in limit: ClosedRange<Double>, _ what: String, unit: String, at word: Word
    ) throws(ProtocolNotationError) {
        guard limit.contains(value) else {
            throw ProtocolNotationError(
                column: word.column,
                message: "\(what) \(value.formatted)\(unit) is outside \(limit.lowerBound.formatted)–\(limit.upperBound.formatted)\(unit)")
        }
    }
}

extension Double {
    /// `7`, `1.5`: without a trailing `.0`.
    fileprivate var formatted: String { self == rounded() && abs(self) < 1e9 ? String(Int(self)) : String(self) }
}
