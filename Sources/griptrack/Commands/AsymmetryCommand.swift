import ArgumentParser
import Foundation
import GripAnalysis
import GripStore
import GripSync

extension Griptrack {
    /// `griptrack asymmetry` (Pro): left against right per athlete and grip, judged against the person's own band.
    struct AsymmetryCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "asymmetry",
            abstract: "Compare left and right per athlete and grip (Pro).",
            discussion: """
                Pairs each athlete's left- and right-hand recordings of a grip made on the same day (local time), \
                each side's best MVC that day, and gives (L − R) / (L + R) per pair: 0 for equal hands, positive \
                when the left is stronger. From 6 earlier pairs on, the latest pair is judged against the band of \
                the pairs before it (mean ± 2 SD); with fewer it says how many more pairs are needed. With \
                --everywhere it covers the account's recordings from every device, read from the sync server.
                """
        )

        @OptionGroup var common: CommonOptions
        @OptionGroup var place: SocketOption

        @Option(help: ArgumentHelp("Only this athlete's recordings (any case).", valueName: "name"))
        var athlete: String?

        @Option(help: ArgumentHelp("Only recordings with this grip, e.g. \"half crimp\" (any case).", valueName: "grip"))
        var grip: String?

        @Flag(help: "Cover the account's recordings from every device, read from the sync server.")
        var everywhere = false

        var filter: RecordingFilter { RecordingFilter(athlete: athlete, grip: grip) }

        func run() async throws {
            var report: AsymmetryReport
            if everywhere {
                let everywhere = try await SyncSetup.historyEverywhere(
                    common: common, what: "`griptrack asymmetry --everywhere`")
                let rows = everywhere.history.map { ($0.recording.localRow, $0.efforts) }
                var uuids: [Int64: UUID] = [:]
                var sessions: [AsymmetryHistory.Session] = []
                for (index, (row, efforts)) in rows.enumerated() where filter.matches(row) {
                    let id = Int64(index + 1)
                    uuids[id] = row.uuid
                    if let session = Self.session(id: id, row: row, efforts: efforts) { sessions.append(session) }
                }
                report = AsymmetryReport(AsymmetryHistory(sessions)) { id in
                    AsymmetryReport.Source(id: nil, uuid: uuids[id]?.uuidString.lowercased())
                }
                report.account = everywhere.account
            } else {
                let library = try LibraryChoice.open(common: common, socket: place)
                try library.plan().requirePro("`griptrack asymmetry`")
                let rows = try library.list(limit: nil, filter: filter).0.visible
                    .filter { ($0.hand == .left || $0.hand == .right) && $0.effortCount > 0 }
                let sessions = try rows.compactMap { listed -> AsymmetryHistory.Session? in
                    let (row, efforts) = try library.show(listed.id)
                    return Self.session(id: row.id.rawValue, row: row, efforts: efforts)
                }
                report = AsymmetryReport(AsymmetryHistory(sessions)) { AsymmetryReport.Source(id: $0, uuid: nil) }
                report.database = library.database
            }
            if common.json {
                try printJSON(report)
                return
            }
            print(report.text, terminator: "")
        }

        /// One hand's recording as a session: its day in local time and its MVC (the highest effort peak, as `show`
        /// gives it); nil for a recording of both hands, of no hand said, or without efforts.
        static func session(id: Int64, row: RecordingRow, efforts: [StoredEffort]) -> AsymmetryHistory.Session? {
            guard let hand = row.hand, hand != .both, let mvc = efforts.map(\.peakKilograms).max() else { return nil }
            return AsymmetryHistory.Session(
                id: id, day: Format.dayKey(row.startedAt), startSeconds: row.startedAt.timeIntervalSince1970,
                athlete: row.setup.athlete, grip: row.setup.grip, hand: hand, mvcKg: mvc)
        }
    }
}
