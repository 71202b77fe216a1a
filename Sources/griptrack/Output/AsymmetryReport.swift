import Foundation
import GripAnalysis

/// `griptrack asymmetry`'s pairs per athlete × grip and the latest pair's judgement (docs/metrics.md, "Asymmetry"),
/// as text and as `--json`.
struct AsymmetryReport: Encodable {
    /// A recording one side of a pair takes its MVC from: its id here, or its UUID when read from the sync server.
    struct Source: Encodable {
        var id: Int64?
        var uuid: String?

        /// `#3`, or the start of the UUID (as `list --everywhere` shows it).
        var name: String { id.map { "#\($0)" } ?? String((uuid ?? "").prefix(8)) }
    }

    struct Pair: Encodable {
        var day: String
        var leftKg: Double
        var rightKg: Double
        /// `(L − R) / (L + R)`, as a fraction.
        var index: Double
        var left: Source
        var right: Source
    }

    struct Band: Encodable {
        var low: Double
        var high: Double
        /// The earlier pairs it is drawn from.
        var pairs: Int
    }

    struct Group: Encodable {
        var athlete: String?
        var grip: String?
        var pairs: [Pair]
        var unpairedSessions: Int
        /// The band of the pairs before the latest; absent under 6 of them.
        var band: Band?
        /// `inside`, `outside` or `too_few_pairs`; absent without a pair.
        var latest: String?
        /// Pairs still needed before the latest is judged (0 once it is).
        var pairsNeeded: Int
    }

    /// The rule, stated in the output so a reader never has to guess.
    var pairing = "one day's left and right of an athlete and grip, each side's best MVC that day"
    var bandRule = "mean ± 2 SD of the earlier pairs' index, from at least 6 of them; the latest pair is judged against it"
    var groups: [Group]
    var database: DatabaseChoice?
    /// `--everywhere`: the sync account the pairs cover.
    var account: String?

    /// - Parameter sources: Each session id's recording, as the output names it.
    init(_ history: AsymmetryHistory, sources: (Int64) -> Source) {
        groups = history.groups.map { group in
            var band: Band?
            var latest: String?
            switch group.latest {
            case .usual(let range)?:
                band = Band(low: range.lowerBound, high: range.upperBound, pairs: group.pairs.count - 1)
                latest = "inside"
            case .unusual(let range)?:
                band = Band(low: range.lowerBound, high: range.upperBound, pairs: group.pairs.count - 1)
                latest = "outside"
            case .tooFewSessions?: latest = "too_few_pairs"
            case nil: break
            }
            return Group(
                athlete: group.athlete, grip: group.grip,
                pairs: group.pairs.map { pair in
                    Pair(
                        day: Format.dayString(pair.day), leftKg: pair.leftKg, rightKg: pair.rightKg, index: pair.index,
                        left: sources(pair.leftID), right: sources(pair.rightID))
                },
                unpairedSessions: group.unpairedSessions, band: band, latest: latest, pairsNeeded: group.pairsNeeded)
        }
    }

    /// `+5.0 %`: an index as a signed percentage.
    static func percent(_ index: Double) -> String {
        String(format: "%+.1f %%", Format.withoutNegativeZero(index * 100, decimals: 1))
    }

    var text: String {
        guard !groups.isEmpty else {
            return "No left- or right-hand recordings with efforts yet. Say which hand with `griptrack label ID --hand left`.\n"
        }
        var lines: [String] = []
        for group in groups {
            if !lines.isEmpty { lines.append("") }
            let title = (group.athlete ?? "no athlete") + " · " + (group.grip ?? "no grip")
            let count = group.pairs.count == 1 ? "1 pair" : "\(group.pairs.count) pairs"
            lines.append(title + ": " + count + (group.unpairedSessions > 0
                ? " (\(group.unpairedSessions) session\(group.unpairedSessions == 1 ? "" : "s") on days without the other hand)"
                : ""))
            guard let newest = group.pairs.last else {
                lines.append(
                    "  No day with both hands yet: a band of your own needs \(group.pairsNeeded) days with a left and a "
                        + "right of this grip (6 earlier pairs and the latest).")
                continue
            }
            lines.append("  day             left      right   asymmetry  recordings")
            for pair in group.pairs {
                lines.append(
                    "  " + pair.day + Format.kg(pair.leftKg).leftPadded(10) + Format.kg(pair.rightKg).leftPadded(11)
                        + Self.percent(pair.index).leftPadded(12) + "  " + pair.left.name + " " + pair.right.name)
            }
            if let band = group.band {
                lines.append(
                    "  Band (mean ± 2 SD of the \(band.pairs) earlier pairs): \(Self.percent(band.low)) to \(Self.percent(band.high))")
                if group.latest == "outside" {
                    let side = newest.index > band.high ? "left" : "right"
                    lines.append("  Latest (\(newest.day)): \(Self.percent(newest.index)), outside the band: stronger on the \(side) than usual.")
                } else {
                    lines.append("  Latest (\(newest.day)): \(Self.percent(newest.index)), inside the band.")
                }
            } else {
                let more = group.pairsNeeded == 1 ? "1 more pair" : "\(group.pairsNeeded) more pairs"
                lines.append("  No band yet: \(more) (days with both hands) before the latest is judged against your own.")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
