import ArgumentParser
import Foundation
import GripAnalysis
import GripProtocol
import GripStore
import GripSync

extension Griptrack {
    /// `griptrack list`: the stored recordings, newest first.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List stored recordings, newest first.",
            discussion: """
                The free plan shows the last 5 recordings and says how many older ones are hidden (they are kept, \
                not deleted). Pro shows the last 20, or every recording with --all.
                """
        )

        @OptionGroup var common: CommonOptions
        @OptionGroup var place: SocketOption

        @Flag(help: "Show every recording (Pro).")
        var all = false

        @Flag(help: "Show the account's recordings from every device, read from the sync database (Pro).")
        var everywhere = false

        @OptionGroup var filtering: FilterOptions

        var filter: RecordingFilter { filtering.filter }

        func validate() throws {
            try filtering.check(everywhere: everywhere)
        }

        static let proPageSize = 20

        func run() async throws {
            if everywhere {
                try await listEverywhere()
                return
            }
            let library = try LibraryChoice.open(common: common, socket: place)
            let plan = try library.plan()
            if all { try plan.requirePro("`griptrack list --all` (the full history)") }
            let (list, status) = try library.list(limit: all ? nil : Self.proPageSize, filter: filter)
            if common.json {
                try printJSON(ListJSON(list: list, plan: status, database: library.database))
                return
            }
            if !filter.isEmpty && list.visible.isEmpty && list.damaged.isEmpty {
                print("No recordings match \(Self.describe(filter)).")
                return
            }
            if library.database.kind == .daemon && list.visible.isEmpty {
                print("No recordings stored in \(library.database.text).")
                return
            }
            print(Self.table(list.visible), terminator: "")
            for damage in list.damaged {
                let which = damage.id.map { "Recording \($0)" } ?? "A recording"
                FileHandle.standardError.write(Data(
                    "griptrack: \(which) cannot be read (\(damage.reason)); `griptrack doctor --repair` sets it aside.\n".utf8))
            }
            if list.hiddenCount > 0 {
                let older = list.hiddenCount == 1 ? "1 older recording is" : "\(list.hiddenCount) older recordings are"
                if status.isPro {
                    print("\(older) not shown: `griptrack list --all` shows every recording.")
                } else {
                    let kept = list.hiddenCount == 1 ? "It is kept" : "They are kept"
                    print("\(older) hidden: the free plan shows the last \(status.limit). "
                        + "\(kept), not deleted; Pro shows \(list.hiddenCount == 1 ? "it" : "them") again.")
                }
            }
            if let warning = status.warning { print(warning) }
        }

        /// `--everywhere`: the personal database's plan decides (sync is Pro), the server answers.
        func listEverywhere() async throws {
            let session = try common.session()
            try session.requirePro("`griptrack list --everywhere` (sync)")
            let client = try SyncSetup.client(session.config)
            let page: RemotePage
            do {
                page = try await client.recordingPageEverywhere(limit: all ? nil : Self.proPageSize)
            } catch {
                throw SyncSetup.exit(error)
            }
            let rows = page.recordings
            if common.json {
                try printJSON(EverywhereJSON(rows, account: client.settings.account, hidden: page.hidden))
                return
            }
            print(Self.everywhereTable(rows), terminator: "")
            if page.hidden > 0 {
                let older = page.hidden == 1 ? "1 older recording is" : "\(page.hidden) older recordings are"
                print("\(older) not shown: `griptrack list --everywhere --all` shows every recording.")
            }
            if !rows.isEmpty { print("`griptrack show --everywhere ID` shows one (the ID is the start of its UUID).") }
        }

        /// `athlete Ana, left hand`: a filter in words.
        static func describe(_ filter: RecordingFilter) -> String {
            [filter.athlete.map { "athlete \($0)" }, filter.hand.map { "\($0.rawValue) hand" }, filter.grip.map { "grip \($0)" }]
                .compactMap { $0 }.joined(separator: ", ")
        }

        static func everywhereTable(_ rows: [RemoteRecording]) -> String {
            guard !rows.isEmpty else { return "No recordings on the sync server yet. Push with `griptrack sync`.\n" }
            var lines = ["ID        started            length  efforts       max   average  device"]
            for row in rows {
                let length = row.endedAt.map { Format.duration($0.timeIntervalSince(row.startedAt)) } ?? "—"
                var line = row.shortID + "  " + Format.minute(row.startedAt) + "  " + length.leftPadded(6) + "  "
                    + String(row.effortCount).leftPadded(7) + "  " + Format.kg(row.maxKilograms).leftPadded(8) + "  "
                    + Format.kg(row.averageKilograms).leftPadded(8) + "  " + row.deviceName
                if row.state != "complete" { line += "  (\(row.state))" }
                if let who = Format.who(row.localRow) { line += "  " + who }
                lines.append(line)
            }
            return lines.joined(separator: "\n") + "\n"
        }

        static func table(_ rows: [RecordingRow]) -> String {
            guard !rows.isEmpty else {
                return "No recordings stored. Save one with `griptrack replay <capture> --save`.\n"
            }
            var lines = ["    ID  started            length  efforts       max   average"]
            for row in rows {
                let length = row.endedAt.map { Format.duration($0.timeIntervalSince(row.startedAt)) } ?? "—"
                var line = String(row.id.rawValue).leftPadded(6) + "  " + Format.minute(row.startedAt) + "  "
                    + length.leftPadded(6) + "  " + String(row.effortCount).leftPadded(7) + "  "
                    + Format.kg(row.maxKilograms).leftPadded(8) + "  " + Format.kg(row.averageKilograms).leftPadded(8)
                if row.state != .complete { line += "  (\(row.state.rawValue))" }
                if let who = Format.who(row) { line += "  " + who }
                lines.append(line)
            }
            return lines.joined(separator: "\n") + "\n"
        }
    }
}

/// `griptrack list --json`: the shape `GET /api/recordings` serves too, so it lives in GripProtocol.
typealias ListJSON = RecordingListJSON

extension ListJSON {
    init(list: RecordingList, plan: Plan, database: DatabaseChoice) {
        self.init(
            recordings: list.visible.map(Item.init), damaged: list.damaged.map { Damaged(id: $0.id, reason: $0.reason) },
            hidden: list.hiddenCount, plan: plan.tier,
            database: Database(kind: database.kind.rawValue, path: database.path, socket: database.socket))
    }
}

extension ListJSON.Item {
    /// A stored row as `list --json` and `show --json` print it.
    init(_ row: RecordingRow) {
        self.init(
            id: row.id.rawValue, uuid: row.uuid.uuidString.lowercased(), startedAt: row.startedAt, endedAt: row.endedAt,
            device: row.device, profile: row.profile, hand: row.hand?.rawValue, label: row.label,
            state: row.state.rawValue, efforts: row.effortCount, samples: row.sampleCount,
            maxKg: jsonKg(row.maxKilograms), avgKg: jsonKg(row.averageKilograms), athlete: row.setup.athlete,
            grip: row.setup.grip, edgeMm: row.setup.edgeMillimetres, bodyWeightKg: row.setup.bodyWeightKilograms,
            protocol: row.setup.protocolNotation, protocolMaxKg: row.setup.protocolMaxKilograms,
            correctionScale: row.correction?.scale, correctionOffsetKg: row.correction?.offsetKilograms)
    }
}

/// `griptrack list --everywhere --json`.
struct EverywhereJSON: Encodable {
    /// A server row: `list --json`'s item without the local id, with the device that recorded it.
    struct Item: Encodable {
        var uuid: String
        var deviceName: String
        var startedAt: Date
        var endedAt: Date?
        var device: String
        var profile: String
        var hand: String?
        var label: String?
        var state: String
        var efforts: Int
        var samples: Int
        var maxKg: Float?
        var avgKg: Float?
        var athlete: String?
        var grip: String?
        var edgeMm: Double?
        var bodyWeightKg: Double?
        var `protocol`: String?
        var protocolMaxKg: Double?
    }

    var account: String
    var recordings: [Item]
    /// The account's recordings left out (the newest 20 are listed without --all).
    var hidden: Int

    init(_ rows: [RemoteRecording], account: String, hidden: Int) {
        self.account = account
        recordings = rows.map(Item.init)
        self.hidden = hidden
    }
}

extension EverywhereJSON.Item {
    /// The fields `list --json` prints, taken from its own item so the two cannot drift apart.
    init(_ row: RemoteRecording) {
        let listed = ListJSON.Item(row.localRow)
        self.init(
            uuid: listed.uuid, deviceName: row.deviceName, startedAt: listed.startedAt, endedAt: listed.endedAt,
            device: listed.device, profile: listed.profile, hand: row.hand, label: listed.label, state: row.state,
            efforts: listed.efforts, samples: listed.samples, maxKg: listed.maxKg, avgKg: listed.avgKg,
            athlete: listed.athlete, grip: listed.grip, edgeMm: listed.edgeMm, bodyWeightKg: listed.bodyWeightKg,
            protocol: listed.protocol, protocolMaxKg: listed.protocolMaxKg)
    }
}
