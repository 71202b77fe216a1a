import Foundation
import GripAnalysis

/// `griptrack trends`' figures per athlete × hand × grip × protocol (docs/metrics.md, "Trends"), as text and as
/// `--json`'s `groups`.
struct TrainingTrendsReport: Encodable {
    struct Point: Encodable {
        /// The recording's id in this database; absent for one read from the sync server, named by ``uuid``.
        var id: Int64?
        var uuid: String?
        var startedAt: Date
        var value: Double

        /// `#3` here, or the start of its UUID for a recording read from the sync server (as `list --everywhere`).
        var name: String { id.map { "#\($0)" } ?? String((uuid ?? "").prefix(8)) }
    }

    struct Figure: Encodable {
        /// `mvc`, `mvc7`, `cf` or `rfd`.
        var name: String
        var unit: String
        var tests: Int
        var first: Double
        var latest: Double
        var changeSinceFirst: Double?
        var changeSincePrevious: Double?
        /// Least-squares slope of the figure against the tests' start times, per week.
        var slopePerWeek: Double?
        var points: [Point]
    }

    struct Group: Encodable {
        var athlete: String?
        var hand: String?
        var grip: String?
        var `protocol`: String?
        var tests: Int
        var figures: [Figure]
    }

    /// How the slope is fitted, stated in the output so a reader never has to guess.
    var slopeMethod = "least squares of each figure against each test's start time; per week"
    var groups: [Group]

    /// - Parameter uuids: For tests read from the sync server: their UUID by their test id, printed instead of it.
    init(_ trends: TrainingTrends, uuids: [Int64: UUID] = [:]) {
        groups = trends.groups.map { group in
            Group(
                athlete: group.key.athlete, hand: group.key.hand?.rawValue, grip: group.key.grip,
                protocol: group.key.protocolNotation, tests: group.tests,
                figures: group.series.map { series in
                    Figure(
                        name: series.metric.rawValue, unit: series.metric.unit, tests: series.points.count,
                        first: series.points[0].value, latest: series.points[series.points.count - 1].value,
                        changeSinceFirst: series.changeSinceFirst, changeSincePrevious: series.changeSincePrevious,
                        slopePerWeek: series.slopePerWeek,
                        points: series.points.map {
                            Point(
                                id: uuids[$0.id] == nil ? $0.id : nil, uuid: uuids[$0.id]?.uuidString.lowercased(),
                                startedAt: Date(timeIntervalSince1970: $0.startSeconds), value: $0.value)
                        })
                })
        }
    }

    /// `Ana · left hand · half crimp · protocol max 3x 10s rest 180s alternate`.
    static func title(_ group: Group) -> String {
        [group.athlete ?? "no athlete", group.hand.map { $0 == "both" ? "both hands" : "\($0) hand" } ?? "no hand",
         group.grip ?? "no grip", group.protocol.map { "protocol \($0)" } ?? "no protocol"]
            .joined(separator: " · ")
    }

    /// `MVC`, `MVC-7`, `CF`, `RFD 20–80 %`.
    static func label(_ name: String) -> String {
        switch name {
        case "mvc": "MVC"
        case "mvc7": "MVC-7"
        case "cf": "CF"
        default: "RFD 20–80 %"
        }
    }

    static func value(_ value: Double?, unit: String, signed: Bool = false) -> String {
        guard let value else { return "—" }
        let decimals = unit == "kg" ? 1 : 0
        let shown = Format.withoutNegativeZero(value, decimals: decimals)
        return String(format: "%\(signed ? "+" : "").\(decimals)f \(unit)", shown)
    }

    /// The section, with a terminal plot of each figure measured at two times or more when `plot` is set.
    func text(plot: Bool) -> String {
        var lines = ["Per athlete × hand × grip × protocol (slope: \(slopeMethod))"]
        for group in groups {
            lines.append("")
            lines.append("\(Self.title(group)): \(group.tests) test\(group.tests == 1 ? "" : "s")")
            lines.append("  figure          first       latest   since first    since last            slope")
            for figure in group.figures {
                var line = "  " + Self.label(figure.name).rightPadded(12)
                line += Self.value(figure.first, unit: figure.unit).leftPadded(9)
                line += Self.value(figure.latest, unit: figure.unit).leftPadded(13)
                line += Self.value(figure.changeSinceFirst, unit: figure.unit, signed: true).leftPadded(14)
                line += Self.value(figure.changeSincePrevious, unit: figure.unit, signed: true).leftPadded(14)
                line += (figure.slopePerWeek.map { Self.value($0, unit: figure.unit, signed: true) + "/week" } ?? "—")
                    .leftPadded(17)
                lines.append(line)
            }
            guard plot else { continue }
            for figure in group.figures where Set(figure.points.map(\.startedAt)).count >= 2 {
                lines.append("")
                lines.append("  " + Self.label(figure.name) + " (" + figure.unit + ")")
                lines += TrendPlot(points: figure.points.map { (date: $0.startedAt, value: $0.value) }).lines.map { "  " + $0 }
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
