import ArgumentParser
import Foundation
import GripAnalysis
import GripStore
import GripSync

extension Griptrack {
    /// `griptrack stats`: max and average; Pro adds trends and comparisons.
    struct Stats: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "stats",
            abstract: "Show max and average force; Pro adds trends and comparisons.",
            discussion: """
                Max is the highest effort peak, average the mean of the effort peaks (open efforts left out). On \
                the free plan they cover the last 5 recordings (the ones `griptrack list` shows); with Pro they \
                cover every recording and add the personal best, the slope in kg/week and how the latest \
                recording compares with the previous one and with the best. With --everywhere they cover the \
                account's recordings from every device, read from the sync server (Pro).
                """
        )

        @OptionGroup var common: CommonOptions
        @OptionGroup var place: SocketOption

        @Flag(help: "Cover the account's recordings from every device, read from the sync server (Pro).")
        var everywhere = false

        func run() async throws {
            if everywhere {
                try await statsEverywhere()
                return
            }
            let library = try LibraryChoice.open(common: common, socket: place)
            let (stats, status) = try library.stats()
            let limit = status.visibleLimit
            var comparison: Comparison?
            if status.isPro {
                comparison = Comparison(try library.history())
            }
            if common.json {
                try printJSON(StatsJSON(stats: stats, comparison: comparison, plan: status.tier,
                                        hidden: max(0, status.stored - stats.recordings), database: library.database))
                return
            }
            guard stats.recordings > 0 else {
                print("No recordings stored. Save one with `griptrack replay <capture> --save`.")
                return
            }
            let scope = limit == nil
                ? "All \(stats.recordings) recording\(stats.recordings == 1 ? "" : "s")"
                : "Last \(stats.recordings) recording\(stats.recordings == 1 ? "" : "s")"
            let range = [stats.first, stats.last].compactMap { $0 }.map(Format.day)
            print("\(scope) (\(Set(range).count == 1 ? range[0] : range.joined(separator: " – "))), \(stats.efforts) efforts")
            print("Max:      \(Format.kg(stats.maxKilograms))")
            print("Average:  \(Format.kg(stats.averageKilograms)) (mean effort peak)")
            if let comparison {
                print("")
                print(comparison.text, terminator: "")
            } else {
                let hidden = status.stored - stats.recordings
                if hidden > 0 {
                    print("\(hidden) older recording\(hidden == 1 ? " is" : "s are") hidden on the free plan and not counted.")
                }
                print("Pro adds trends and comparisons (`griptrack pro status`).")
            }
        }

        /// `--everywhere`: the personal database's plan decides (sync is Pro), the server answers.
        private func statsEverywhere() async throws {
            let (account, history) = try await SyncSetup.historyEverywhere(
                common: common, what: "`griptrack stats --everywhere`")
            let stats = RecordingStatistics(
                starts: history.map(\.recording.startedAt), samples: history.reduce(0) { $0 + $1.recording.sampleCount },
                efforts: history.flatMap(\.efforts))
            // The server's recordings have no id on this device: the latest is named by its UUID's start.
            let comparison = Comparison(
                history.map { $0.recording.analysed(efforts: $0.efforts) }, uuids: history.map(\.recording.uuid))
            let devices = Set(history.map(\.recording.deviceName)).count
            if common.json {
                var json = StatsJSON(stats: stats, comparison: comparison, plan: "pro", hidden: 0, database: nil)
                json.account = account
                json.devices = devices
                try printJSON(json)
                return
            }
            guard stats.recordings > 0 else {
                print("No recordings on the sync server yet. Push with `griptrack sync`.")
                return
            }
            let range = [stats.first, stats.last].compactMap { $0 }.map(Format.day)
            print("All \(stats.recordings) recording\(stats.recordings == 1 ? "" : "s") of account \(account) from "
                + "\(devices) device\(devices == 1 ? "" : "s") "
                + "(\(Set(range).count == 1 ? range[0] : range.joined(separator: " – "))), \(stats.efforts) efforts")
            print("Max:      \(Format.kg(stats.maxKilograms))")
            print("Average:  \(Format.kg(stats.averageKilograms)) (mean effort peak)")
            print("")
            print(comparison.text, terminator: "")
        }
    }
}

/// The Pro part of `stats`: personal best, slope, and the latest recording against the previous and the best.
struct Comparison: Encodable {
    var personalBestKg: Float?
    var personalBestDay: String?
    var slopeKgPerWeek: Double?
    var changeFromFirstKg: Float?
    var latestId: Int64?
    /// The latest recording's UUID, for `--everywhere` (where recordings have no id on this device).
    var latestUuid: String?
    var latestMaxKg: Float?
    var latestVsPreviousKg: Float?
    var latestVsBestKg: Float?

    /// - Parameters:
    ///   - recordings: Oldest first.
    ///   - uuids: For the sync server's recordings, their UUIDs in the same order: the latest is then named by
    ///     its UUID instead of a local id.
    init(_ recordings: [AnalysedRecording], uuids: [UUID]? = nil) {
        let trends = Trends(recordings.map { Trends.Entry(day: Format.dayKey($0.startedAt), recording: $0.recording) })
        personalBestKg = trends.personalBestKg
        personalBestDay = trends.personalBestDay.map(Format.dayString)
        slopeKgPerWeek = trends.slopeKgPerWeek
        changeFromFirstKg = trends.changeFromFirstKg
        if let index = recordings.lastIndex(where: { $0.recording.maxKg != nil }) {
            let latest = recordings[index]
            if let uuids, uuids.indices.contains(index) {
                latestUuid = uuids[index].uuidString.lowercased()
            } else {
                latestId = latest.id.rawValue
            }
            latestMaxKg = latest.recording.maxKg
            latestVsPreviousKg = trends.changeFromPreviousKg
            if let best = personalBestKg, let max = latestMaxKg { latestVsBestKg = max - best }
        }
    }

    /// `Personal best:  22.4 kg (2026-11-30)` for one athlete's recordings, `Best:` for anyone's: a maximum over
    /// a gym's athletes is nobody's personal best.
    static func bestLine(kg: Double, day: String?, oneAthlete: Bool) -> String {
        (oneAthlete ? "Personal best:  " : "Best:           ") + Format.kg(kg) + (day.map { " (\($0))" } ?? "")
    }

    var text: String {
        var lines: [String] = []
        if let best = personalBestKg {
            lines.append(Self.bestLine(kg: Double(best), day: personalBestDay, oneAthlete: false))
        }
        if let slope = slopeKgPerWeek { lines.append("Trend:          " + String(format: "%+.2f kg/week", slope)) }
        if let change = changeFromFirstKg { lines.append("Since first:    \(Format.signedKg(change))") }
        if let name = latestId.map({ "#\($0)" }) ?? latestUuid.map({ String($0.prefix(8)) }), let max = latestMaxKg {
            var line = "Latest (\(name)):   max \(Format.kg(max))"
            if let previous = latestVsPreviousKg { line += ", \(Format.signedKg(previous)) vs previous" }
            if let best = latestVsBestKg { line += ", \(Format.signedKg(best)) vs best" }
            lines.append(line)
        }
        return lines.isEmpty ? "" : lines.joined(separator: "\n") + "\n"
    }
}

/// `griptrack stats --json`.
struct StatsJSON: Encodable {
    var plan: String
    var recordings: Int
    var hidden: Int
    var efforts: Int
    var samples: Int
    var maxKg: Float?
    var avgKg: Float?
    var first: Date?
    var last: Date?
    var comparison: Comparison?
    /// Where the figures come from: a database, or (`--everywhere`) nil and the sync account with its device count.
    var database: DatabaseChoice?
    var account: String?
    var devices: Int?

    init(stats: RecordingStatistics, comparison: Comparison?, plan: String, hidden: Int, database: DatabaseChoice?) {
        self.plan = plan
        recordings = stats.recordings
        self.hidden = hidden
        efforts = stats.efforts
        samples = stats.samples
        maxKg = jsonKg(stats.maxKilograms)
        avgKg = jsonKg(stats.averageKilograms)
        first = stats.first
        last = stats.last
        self.comparison = comparison
        self.database = database
    }
}
