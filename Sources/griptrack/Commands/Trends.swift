import ArgumentParser
import Foundation
import GripAnalysis
import GripStore
import GripSync

extension Griptrack {
    /// `griptrack trends` (Pro): progress across recordings.
    struct TrendsCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "trends",
            abstract: "Show progress across recordings (Pro).",
            discussion: """
                Best and average per day and per week (weeks start on Monday, local time), the least-squares \
                slope of recording max in kg/week, the change against the first and the previous recording, and \
                the personal best. A recording's score is its max (open efforts left out). With --everywhere \
                they cover the account's recordings from every device, read from the sync server. --athlete, \
                --hand and --grip keep one athlete's, hand's or grip's recordings, as `list` filters them.

                Then, per athlete × hand × grip × protocol (the protocol stored by `record --protocol`), MVC, MVC-7, \
                critical force (cf tests) and the best RFD 20–80 %: first and latest, the change since the first \
                and since the previous test, the least-squares slope per week over the tests' start times, and a \
                terminal plot of each (--no-plot leaves them out; --svg FILE writes them as an SVG chart).
                """
        )

        @OptionGroup var common: CommonOptions
        @OptionGroup var place: SocketOption

        /// Day key of a Monday (1970-01-05).
        static let mondayKey = 4

        @Flag(help: "Cover the account's recordings from every device, read from the sync server.")
        var everywhere = false

        @OptionGroup var filtering: FilterOptions

        @Option(help: ArgumentHelp(
            "Write the per athlete × hand × grip × protocol trends as an SVG chart to this file.", valueName: "file"))
        var svg: String?

        @Flag(help: "Leave out the terminal plots.")
        var noPlot = false

        var filter: RecordingFilter { filtering.filter }

        func validate() throws {
            try filtering.check(everywhere: everywhere)
        }

        func run() async throws {
            let recordings: [AnalysedRecording]
            var account: String?
            var database: DatabaseChoice?
            var training: TrainingTrendsReport?
            if everywhere {
                let everywhere = try await SyncSetup.detailedHistoryEverywhere(
                    common: common, what: "`griptrack trends --everywhere`")
                recordings = everywhere.history.map { $0.recording.analysed(efforts: $0.efforts) }
                account = everywhere.account
                training = Self.trainingTrends(everywhere.history)
            } else {
                let library = try LibraryChoice.open(common: common, socket: place)
                try library.plan().requirePro("`griptrack trends`")
                let history = try library.history()
                if filter.isEmpty {
                    recordings = history
                } else {
                    // The same rule as `list`: the rows that match, then their efforts from the history.
                    let matching = Set(try library.list(limit: nil, filter: filter).0.visible.map(\.id))
                    recordings = history.filter { matching.contains($0.id) }
                }
                database = library.database
                training = try Self.trainingTrends(library, filter: filter)
            }
            let trends = Trends(
                recordings.map { Trends.Entry(day: Format.dayKey($0.startedAt), recording: $0.recording) },
                weekStartDay: Self.mondayKey)
            if common.json {
                var json = TrendsJSON(trends)
                json.database = database
                json.account = account
                json.training = training
                try writeChart(training)
                try printJSON(json)
                return
            }
            try writeChart(training)
            guard let best = trends.personalBestKg else {
                print("No scored recordings yet. Save one with `griptrack replay <capture> --save`.")
                return
            }
            print(Comparison.bestLine(
                kg: Double(best), day: trends.personalBestDay.map(Format.dayString), oneAthlete: filter.athlete != nil))
            print("Slope:          " + (trends.slopeKgPerWeek.map { String(format: "%+.2f kg/week", $0) } ?? "— (needs two days)"))
            print("Since first:    \(Format.signedKg(trends.changeFromFirstKg.map(Double.init)))")
            print("Since previous: \(Format.signedKg(trends.changeFromPreviousKg.map(Double.init)))")
            print("")
            print("Week of           best   average  recordings")
            for week in trends.weeks {
                print(Format.dayString(week.key * 7 + Self.mondayKey).rightPadded(12)
                      + Format.kg(Double(week.bestKg)).leftPadded(10) + Format.kg(Double(week.averageKg)).leftPadded(10)
                      + String(week.recordings).leftPadded(12))
            }
            print("")
            print("Day               best   average  recordings")
            for day in trends.days {
                print(Format.dayString(day.key).rightPadded(12)
                      + Format.kg(Double(day.bestKg)).leftPadded(10) + Format.kg(Double(day.averageKg)).leftPadded(10)
                      + String(day.recordings).leftPadded(12))
            }
            if let training, !training.groups.isEmpty {
                print("")
                print(training.text(plot: !noPlot), terminator: "")
            }
            if let svg { print("Chart written to \(svg)") }
        }

        /// Every recording of the filter with a figure, read with its efforts and samples (as `show` reads them).
        static func trainingTrends(_ library: any RecordingLibrary, filter: RecordingFilter) throws -> TrainingTrendsReport {
            let rows = try library.list(limit: nil, filter: filter).0.visible.filter { $0.effortCount > 0 }
            let tests = try rows.map { listed in
                let (row, efforts) = try library.show(listed.id)
                return TrendInputs.test(row: row, efforts: efforts, samples: try library.samples(of: row.id))
            }
            return TrainingTrendsReport(TrainingTrends(tests))
        }

        /// The account's recordings from the sync server, figured as `show --everywhere` figures each one. The
        /// server's rows have no local id: each test is numbered by its place in the history, and the report names
        /// it by its UUID instead.
        static func trainingTrends(_ history: [RemoteRecordingDetail]) -> TrainingTrendsReport {
            var uuids: [Int64: UUID] = [:]
            let tests = history.enumerated().filter { $0.element.recording.effortCount > 0 }.map { index, detail in
                var row = detail.recording.localRow
                row.id = RecordingID(rawValue: Int64(index + 1))
                uuids[row.id.rawValue] = row.uuid
                return TrendInputs.test(row: row, efforts: detail.efforts, samples: detail.samples)
            }
            return TrainingTrendsReport(TrainingTrends(tests), uuids: uuids)
        }

        private func writeChart(_ report: TrainingTrendsReport?) throws {
            guard let svg, let report else { return }
            do {
                try Data(TrendChartSVG(report: report).text.utf8).write(to: URL(fileURLWithPath: svg))
            } catch {
                throw CLIExit.error.fail("cannot write \(svg): \(error.localizedDescription)")
            }
        }
    }
}

/// `griptrack trends --json`.
struct TrendsJSON: Encodable {
    struct Period: Encodable {
        var start: String
        var bestKg: Float
        var avgKg: Float
        var recordings: Int
    }

    var days: [Period]
    var weeks: [Period]
    var slopeKgPerWeek: Double?
    var changeFromFirstKg: Float?
    var changeFromPreviousKg: Float?
    var personalBestKg: Float?
    var personalBestDay: String?
    var database: DatabaseChoice?
    /// `--everywhere`: the sync account the figures cover.
    var account: String?
    /// Per athlete × hand × grip × protocol.
    var training: TrainingTrendsReport?

    init(_ trends: Trends) {
        days = trends.days.map {
            Period(start: Format.dayString($0.key), bestKg: $0.bestKg, avgKg: $0.averageKg, recordings: $0.recordings)
        }
        weeks = trends.weeks.map {
            Period(start: Format.dayString($0.key * 7 + Griptrack.TrendsCommand.mondayKey), bestKg: $0.bestKg,
                   avgKg: $0.averageKg, recordings: $0.recordings)
        }
        slopeKgPerWeek = trends.slopeKgPerWeek
        changeFromFirstKg = trends.changeFromFirstKg
        changeFromPreviousKg = trends.changeFromPreviousKg
        personalBestKg = trends.personalBestKg
        personalBestDay = trends.personalBestDay.map(Format.dayString)
    }
}
