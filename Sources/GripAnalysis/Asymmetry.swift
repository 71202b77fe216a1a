/// Left/right asymmetry, `(L − R) / (L + R)`, judged against the person's own history (`docs/metrics.md`,
/// "Asymmetry"): a band of mean ± 2 standard deviations over at least ``minimumSessions`` earlier sessions of the same
/// grip. Hand dominance varies too much between people for a population rule (Petersen et al. 1989: the dominant hand
/// 12.7 % stronger in right-handers, −0.1 % in left-handers), so only the person's own spread says what is unusual.
/// Pure.
public enum Asymmetry {
    /// The fewest earlier sessions a band is drawn from.
    public static let minimumSessions = 6

    /// How a session's asymmetry compares with the person's own.
    public enum Judgement: Sendable, Equatable {
        /// Inside the band.
        case usual(band: ClosedRange<Double>)
        /// Outside the band: stronger on the left than usual (above it) or on the right (below it).
        case unusual(band: ClosedRange<Double>)
        /// Fewer than ``minimumSessions`` earlier sessions: no band yet.
        case tooFewSessions(found: Int)
    }

    /// `(L − R) / (L + R)`: 0 for equal hands, positive when the left is stronger; nil unless both are above zero.
    public static func index(leftKg: Double, rightKg: Double) -> Double? {
        guard leftKg > 0, rightKg > 0 else { return nil }
        return (leftKg - rightKg) / (leftKg + rightKg)
    }

    /// Mean ± 2 sample standard deviations of earlier indices, or nil under ``minimumSessions``.
    public static func band(history: [Double]) -> ClosedRange<Double>? {
        guard history.count >= minimumSessions else { return nil }
        let mean = history.reduce(0, +) / Double(history.count)
        let variance = history.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(history.count - 1)
        let spread = 2 * variance.squareRoot()
        return (mean - spread)...(mean + spread)
    }

    /// Judges `index` against `history` (earlier sessions of the same grip).
    public static func judge(_ index: Double, history: [Double]) -> Judgement {
        guard let band = band(history: history) else { return .tooFewSessions(found: history.count) }
        return band.contains(index) ? .usual(band: band) : .unusual(band: band)
    }
}
