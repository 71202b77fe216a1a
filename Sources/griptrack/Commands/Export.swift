import ArgumentParser
import Foundation
import GripAnalysis
import GripImport
import GripStore
import GripSync

extension Griptrack {
    /// `griptrack export` (Pro): recordings with every sample, as CSV or JSON.
    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "export",
            abstract: "Export recordings with every sample as CSV or JSON (Pro).",
            discussion: """
                CSV follows the Tindeq app's layout: a header block of `field,value` lines, an empty line, then \
                `time,weight` rows (seconds from the first sample, kg as the device reported them), CRLF line \
                endings; `griptrack import` reads it back to the same samples. JSON holds the recording, its efforts and its samples. With --all, CSV writes one \
                griptrack-<id>.csv per recording into the directory given by -o; JSON writes one array. With \
                --everywhere, ID is the start of a UUID from `griptrack list --everywhere` and the recording is read \
                from the sync server, whichever device recorded it.
                """
        )

        enum FileFormat: String, ExpressibleByArgument, CaseIterable {
            case csv, json
        }

        @OptionGroup var common: CommonOptions
        @OptionGroup var place: SocketOption

        @Argument(help: "The recording's id, or with --everywhere the start of its UUID.")
        var id: RecordingReference?

        @Flag(help: "Read the recording from the sync server: the account's recordings from every device.")
        var everywhere = false

        @Flag(help: "Export every recording.")
        var all = false

        @Option(help: "csv or json.")
        var format: FileFormat

        @Option(name: .shortAndLong, help: ArgumentHelp(
            "Write to this file (with --all and csv: this directory) instead of standard output.", valueName: "path"))
        var output: String?

        func validate() throws {
            if (id == nil) == !all {
                throw ValidationError("Name one recording id, or pass --all (not both).")
            }
            if all && everywhere {
                throw ValidationError("--everywhere exports one recording: name it by the start of its UUID.")
            }
            if all && format == .csv && output == nil {
                throw ValidationError("--all --format csv writes one file per recording: name a directory with -o DIR.")
            }
        }

        func run() async throws {
            let exports: [RecordingExport]
            if everywhere, let id {
                let detail = try await SyncSetup.recordingEverywhere(
                    id, common: common, what: "`griptrack export --everywhere`")
                var export = RecordingExport(
                    row: detail.recording.localRow, efforts: detail.efforts, samples: detail.samples)
                export.id = nil
                export.deviceName = detail.recording.deviceName
                exports = [export]
            } else {
                exports = try localExports()
            }
            switch format {
            case .json:
                let encoder = JSONEncoder()
                encoder.keyEncodingStrategy = .convertToSnakeCase
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
                encoder.dateEncodingStrategy = .iso8601
                var data = all ? try encoder.encode(exports) : try encoder.encode(exports[0])
                data.append(0x0A)
                try write(data, to: output)
            case .csv where all:
                let directory = output ?? "."
                try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                for export in exports {
                    let path = URL(fileURLWithPath: directory).appendingPathComponent("griptrack-\(export.id.map(String.init) ?? export.uuid).csv").path
                    try write(Data(export.csv.utf8), to: path)
                }
                FileHandle.standardError.write(Data("Wrote \(exports.count) CSV file(s) to \(directory)\n".utf8))
            case .csv:
                try write(Data(exports[0].csv.utf8), to: output)
            }
        }

        /// Where the data comes from: griptrackd's database (READ pages) or a file (docs/storage.md).
        private func localExports() throws -> [RecordingExport] {
            let library = try LibraryChoice.open(common: common, socket: place)
            try library.plan().requirePro("`griptrack export`")
            let ids: [RecordingID]
            if let id {
                ids = [try id.requireLocal()]
            } else {
                ids = try library.list(limit: nil).0.visible.reversed().map(\.id)
            }
            var exports: [RecordingExport] = []
            for id in ids {
                let (row, efforts) = try library.show(id)
                let samples = try library.samples(of: id)
                exports.append(RecordingExport(row: row, efforts: efforts, samples: samples))
            }
            if library.database.kind == .daemon {
                FileHandle.standardError.write(Data("Exported from \(library.database.text)\n".utf8))
            }
            return exports
        }

        private func write(_ data: Data, to path: String?) throws {
            guard let path else {
                FileHandle.standardOutput.write(data)
                return
            }
            do {
                try data.write(to: URL(fileURLWithPath: path))
            } catch {
                throw CLIExit.error.fail("cannot write \(path): \(error.localizedDescription)")
            }
        }
    }
}

/// One exported recording.
struct RecordingExport: Encodable {
    struct Sample: Encodable {
        var micros: Int64
        var kg: Float
    }

    /// The local id; nil for a recording read from the sync server (`--everywhere`).
    var id: Int64?
    var uuid: String
    /// The device that recorded it, for a recording read from the sync server.
    var deviceName: String?
    var startedAt: Date
    var endedAt: Date?
    var device: String
    var profile: String
    var state: String
    var maxKg: Float?
    var avgKg: Float?
    var efforts: [ShowJSON.EffortItem]
    /// Device time (µs, unwrapped) and force exactly as stored.
    var samples: [Sample]
    var hand: String?
    var label: String?
    /// Who pulled and how, and the protocol run (each absent until said).
    var athlete: String?
    var grip: String?
    var edgeMm: Double?
    var bodyWeightKg: Double?
    var `protocol`: String?
    var protocolMaxKg: Double?
    /// Where the stream was interrupted (µs, the samples' timeline): after each open effort that is not the last
    /// sample, and before each effort that starts open (the sample before it), so an import cuts the same efforts.
    var linkDropsMicros: [Int64]

    init(row: RecordingRow, efforts: [StoredEffort], samples: [StoredSample]) {
        id = row.id.rawValue
        uuid = row.uuid.uuidString.lowercased()
        startedAt = row.startedAt
        endedAt = row.endedAt
        device = row.device
        profile = row.profile
        state = row.state.rawValue
        maxKg = jsonKg(row.maxKilograms)
        avgKg = jsonKg(row.averageKilograms)
        self.efforts = ShowJSON(row: row, efforts: efforts, samples: samples).efforts
        self.samples = samples.map { Sample(micros: $0.micros, kg: $0.kilograms) }
        hand = row.hand?.rawValue
        label = row.label
        athlete = row.setup.athlete
        grip = row.setup.grip
        edgeMm = row.setup.edgeMillimetres
        bodyWeightKg = row.setup.bodyWeightKilograms
        `protocol` = row.setup.protocolNotation
        protocolMaxKg = row.setup.protocolMaxKilograms
        linkDropsMicros = Self.linkDrops(efforts: efforts, samples: samples)
    }

    /// The link drops the stored efforts show: an effort closed open before the last sample ended at one, and an
    /// effort that starts open began after one (the sample before it is the last before the drop).
    static func linkDrops(efforts: [StoredEffort], samples: [StoredSample]) -> [Int64] {
        guard let first = samples.first?.micros, let last = samples.last?.micros else { return [] }
        var drops: Set<Int64> = []
        for effort in efforts {
            if effort.isOpen, effort.endMicros < last { drops.insert(effort.endMicros) }
            if effort.isOpenStart, effort.startMicros > first,
                let before = samples.last(where: { $0.micros < effort.startMicros })
            {
                drops.insert(before.micros)
            }
        }
        return drops.sorted()
    }

    /// The Tindeq-style CSV: header block, empty line, `time,weight` rows; CRLF. `griptrack import` reads it back to
    /// the same samples, bit for bit (``GriptrackCSV``).
    var csv: String {
        func number(_ value: Float?) -> String { value.map { String(format: "%.3f", Double($0)) } ?? "" }
        // Typed up front: seventeen pairs of mixed expressions are too many for the type checker to infer in time.
        let pairs: [(String, String)] = [
            ("date", Format.second(startedAt)),
            ("tag", id.map { "griptrack recording \($0)" } ?? "griptrack recording \(uuid) from \(deviceName ?? "?")"),
            ("comment", ""),
            ("unit", "kg"),
            ("type", "recording"),
            ("max weight", number(maxKg)),
            ("avg weight", number(avgKg)),
            ("efforts", "\(efforts.count)"),
            ("device", device),
            ("profile", profile),
            ("uuid", uuid),
            (GriptrackCSV.handField, hand ?? ""),
            (GriptrackCSV.labelField, label ?? ""),
            (GriptrackCSV.athleteField, athlete ?? ""),
            (GriptrackCSV.gripField, grip ?? ""),
            (GriptrackCSV.edgeField, edgeMm.map { "\($0)" } ?? ""),
            (GriptrackCSV.bodyWeightField, bodyWeightKg.map { "\($0)" } ?? ""),
            (GriptrackCSV.protocolField, `protocol` ?? ""),
            (GriptrackCSV.protocolMaxField, protocolMaxKg.map { "\($0)" } ?? ""),
            (GriptrackCSV.linkDropsField, linkDropsMicros.map(String.init).joined(separator: " ")),
        ]
        let fields = pairs.map { ExportField(name: $0.0, value: $0.1) }
        return GriptrackCSV.write(
            fields: fields, samples: samples.map { ForceSample(micros: $0.micros, kilograms: $0.kg) })
    }
}
