import GripAnalysis
import GripStore

/// `record --protocol` without `--max-kg`: the athlete's best MVC for the hand and grip, from the recordings the
/// library shows (docs/protocols.md, "The band's max").
struct HistoryMax {
    /// The max the band is a percentage of.
    var kilograms: Double
    /// The recording it came from.
    var row: RecordingRow

    /// The highest recording max among the recordings that match `filter` (the same rule as `list`'s filters; on the
    /// free plan, among the newest it shows), within the range a recording may store as its protocol's max.
    static func best(in library: any RecordingLibrary, filter: RecordingFilter) throws -> HistoryMax? {
        let rows = try library.list(limit: nil, filter: filter).0.visible
        let scored = rows.compactMap { row in
            row.maxKilograms.flatMap { RecordingDescription.protocolMaxRange.contains($0) ? HistoryMax(kilograms: $0, row: row) : nil }
        }
        return scored.max { $0.kilograms < $1.kilograms }
    }

    /// `Band max 46.4 kg: recording #1 (2026-11-20 10:02, Ana, right hand, half crimp), the best stored; --max-kg overrides it.`
    var text: String {
        let who = Format.who(row).map { ", " + $0 } ?? ""
        return "Band max \(Format.kg(kilograms)): recording #\(row.id.rawValue) (\(Format.minute(row.startedAt))\(who)), "
            + "the best stored; --max-kg overrides it."
    }

    /// Why there is no band: nothing stored for `filter`, and what to do.
    static func missing(_ filter: RecordingFilter) -> String {
        var whose = [filter.athlete, filter.hand.map { $0 == .both ? "both hands" : "\($0.rawValue) hand" }, filter.grip]
            .compactMap { $0 }.joined(separator: ", ")
        if whose.isEmpty { whose = "any athlete, hand or grip" }
        return "No stored recording (\(whose)) gives a max for the protocol's band, so the run shows no band. "
            + "Pass --max-kg KG, your max for this hand and grip (e.g. from `griptrack record --protocol max`)."
    }
}
