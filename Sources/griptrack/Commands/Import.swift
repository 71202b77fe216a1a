import ArgumentParser
import Foundation
import GripAnalysis
import GripImport
import GripProtocol
import GripStore

extension Griptrack {
    /// `griptrack import`: tests exported by the Tindeq app (and griptrack's own CSV export) into recordings.
    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract: "Import the Tindeq app's CSV exports (and griptrack's own) as recordings.",
            discussion: """
                Reads peak force, endurance, RFD and critical force exports (.csv), repeaters bundles (the .zip \
                with info.csv and data_set_N.csv, or its unzipped folder) and `griptrack export --format csv` \
                files. Every file is read and checked first (--dry-run makes the same checks): a malformed one is \
                refused with file:line and what is wrong (exit 5), and then nothing is stored. Each file then \
                becomes one recording, all stored in one transaction through the free plan's limit, with griptrack's \
                efforts and the app's own figures beside them (`griptrack show ID` compares them). If the limit \
                refuses one, none is stored, the reason is printed and griptrack exits 3. Layouts: docs/import.md.
                """
        )

        @Argument(help: ArgumentHelp("CSV exports, repeaters bundles (.zip) or their folders.", valueName: "file"))
        var files: [String]

        @Flag(help: "Print what would be stored, and store nothing.")
        var dryRun = false

        @OptionGroup var common: CommonOptions

        func validate() throws {
            if files.isEmpty { throw ValidationError("Name at least one file to import.") }
        }

        /// One file, read, checked and analysed, ready to store (its samples are read again to store them).
        struct Prepared {
            var opened: ImportInput.Opened
            var export: TindeqExport
            var analysis: ImportAnalysis
            var draft: RecordingDraft
            var endedAt: Date
            var figures: ImportedFigures
            var comparison: ImportComparison
        }

        func run() throws {
            // Every file is read and checked (every check a store would make) before anything is stored, so a bad
            // file stores nothing, and --dry-run refuses what an import would refuse.
            var prepared: [Prepared] = []
            for path in files {
                prepared.append(try Self.prepare(try Self.failing { () throws(ImportInput.Failure) in try ImportInput.open(path) }, now: Date()))
            }
            // Open the store only to store (a dry run needs no database).
            var storedIDs: [RecordingID?] = Array(repeating: nil, count: prepared.count)
            var skipped: [Skip?] = Array(repeating: nil, count: prepared.count)
            var refusal: String? = nil
            if !dryRun {
                let session = try common.session()
                // An export imported before (or given twice) is skipped, not stored again: importing a whole folder of
                // exports again stores only the new ones.
                var seen: Set<String> = []
                for (index, item) in prepared.enumerated() {
                    guard let digest = item.figures.contentDigest else { continue }
                    let earlier: RecordingID?
                    do {
                        earlier = try session.store.importedRecording(contentDigest: digest)
                    } catch {
                        throw CLIExit.storeFailure(error)
                    }
                    if let earlier {
                        skipped[index] = .importedBefore(earlier)
                    } else if !seen.insert(digest).inserted {
                        skipped[index] = .givenTwice
                    }
                }
                // All new files in one transaction: all are stored, or none.
                var items: [RecordingStore.ImportedRecording] = []
                var storing: [Int] = []
                for (index, item) in prepared.enumerated() where skipped[index] == nil {
                    storing.append(index)
                    var samples: [StoredSample] = []
                    samples.reserveCapacity(item.export.series.count)
                    let again = try Self.failing { () throws(ImportInput.Failure) in
                        try ImportInput.read(item.opened) { samples.append(StoredSample(micros: $0.micros, kilograms: $0.kilograms)) }
                    }
                    // What is stored must be what was checked.
                    guard again.series == item.export.series else {
                        throw CLIExit.error.fail("\(item.export.fileName) changed while it was being imported: nothing was stored; import it again")
                    }
                    items.append(RecordingStore.ImportedRecording(
                        recording: item.analysis.recording, samples: samples, draft: item.draft, endedAt: item.endedAt,
                        figures: item.figures))
                }
                do {
                    let ids = items.isEmpty ? [] : try session.store.saveImportedRecordings(items, context: session.context, now: Date())
                    for (index, id) in zip(storing, ids) { storedIDs[index] = id }
                } catch .refused(let reason, _) {
                    refusal = storing.count == 1
                        ? "\(prepared[storing[0]].export.fileName) was not imported: \(reason)"
                        : "none of the \(storing.count) new files was imported (all are stored or none): \(reason)"
                } catch {
                    throw CLIExit.storeFailure(error)
                }
            }
            var results: [TindeqImportJSON.Item] = []
            for (index, item) in prepared.enumerated() {
                results.append(TindeqImportJSON.Item(item, storedID: storedIDs[index], skipped: skipped[index]))
                if !common.json, refusal == nil || skipped[index] != nil {
                    if let skip = skipped[index] {
                        print(skip.line(item.export.fileName))
                    } else {
                        print(Self.line(item, storedID: storedIDs[index], dryRun: dryRun))
                    }
                    for head in item.export.droppedHeads { print("  Note: " + head.description + ".") }
                }
            }
            if common.json {
                try printJSON(TindeqImportJSON(dryRun: dryRun, imports: results, refused: refusal))
            } else if dryRun {
                print("Dry run: nothing was stored.")
            }
            if let refusal { throw CLIExit.proRequired.fail(refusal) }
        }

        /// Runs a read and turns its failure into the exit it calls for.
        static func failing<T>(_ body: () throws(ImportInput.Failure) -> T) throws -> T {
            do {
                return try body()
            } catch {
                switch error {
                case .unreadable(let message): throw CLIExit.error.fail(message)
                case .invalid(let problem): throw CLIExit.invalidInput.fail(problem.description)
                }
            }
        }

        /// Reads an opened file as it streams (its samples are not kept), analyses it and makes every check storing
        /// it would make, and builds what the store takes.
        static func prepare(_ opened: ImportInput.Opened, now: Date) throws -> Prepared {
            var analyser = ImportAnalyser()
            let export = try failing { () throws(ImportInput.Failure) in
                try ImportInput.read(opened, interruption: { analyser.interruption() }, sample: { analyser.ingest($0) })
            }
            var analysis = analyser.finish()
            if let steady = export.steadyHoldSettings(after: analysis) {
                // The app says the test was one hold: read it again without the live pre-load rule.
                analyser = ImportAnalyser(settings: steady)
                _ = try failing { () throws(ImportInput.Failure) in
                    try ImportInput.read(opened, interruption: { analyser.interruption() }, sample: { analyser.ingest($0) })
                }
                analysis = analyser.finish()
            }
            if export.figures.rfd2080 != nil {
                // The whole series' RFD needs its maximum first: a second pass, only when the app gave one to compare.
                var rfd = analyser.rfd
                _ = try failing { () throws(ImportInput.Failure) in try ImportInput.read(opened) { rfd.ingest($0) } }
                analysis.wholeSeriesRFD2080 = rfd.value
            }
            let date = export.date
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = .current
            let parts = DateComponents(
                year: date.year, month: date.month, day: date.day, hour: date.hour, minute: date.minute, second: date.second)
            guard let startedAt = calendar.date(from: parts) else {
                throw CLIExit.invalidInput.fail("\(export.fileName): the date \(date) does not exist in the local time zone")
            }
            // The parser guarantees the span fits in Int64 µs.
            let first = export.series.first?.micros ?? 0
            let last = export.series.last?.micros ?? first
            let endedAt = startedAt.addingTimeInterval(Double(last - first) / 1e6)
            // The store's own date check, made here too so that --dry-run refuses what storing would refuse.
            if !RecordingStore.plausibleDates.contains(startedAt) {
                throw CLIExit.invalidInput.fail(
                    "\(export.fileName): the date \(date) is outside 2000–2100: the file's date is wrong; correct it and import again")
            }
            if !RecordingStore.plausibleDates.contains(endedAt) {
                let (file, line) = export.series.lastSampleLocation(orFile: export.fileName)
                throw CLIExit.invalidInput.fail(
                    "\(file)\(line.map { ":\($0)" } ?? ""): the recording would end after 2100 (this last sample is "
                        + "\((last - first) / 1_000_000) s after the first, which is dated \(date)): the times are wrong; "
                        + "correct them and import again")
            }
            let name = URL(fileURLWithPath: export.fileName).lastPathComponent
            let draft: RecordingDraft
            switch export.source {
            case .tindeqApp:
                draft = RecordingDraft(
                    startedAt: startedAt, device: "Tindeq app export \(name)", profile: "Tindeq Progressor",
                    label: export.tag.map { String($0.utf8.prefix(200)) ?? $0 })
            case .griptrack:
                func field(_ name: String) -> String? {
                    export.field(name).map { $0.trimmingCharacters(in: .whitespaces) }.flatMap { $0.isEmpty ? nil : $0 }
                }
                draft = RecordingDraft(
                    startedAt: startedAt, device: field("device") ?? "griptrack export \(name)",
                    profile: field("profile") ?? "Tindeq Progressor",
                    hand: field(GriptrackCSV.handField).flatMap { Hand(rawValue: $0) },
                    label: field(GriptrackCSV.labelField),
                    setup: try Self.setup(export.fileName, field))
            }
            var figures = ImportedFigures(
                // The file's own name: the path typed (often absolute) says where it was, not what it was.
                source: export.source.rawValue, fileName: name, testType: export.test.rawValue,
                testedAt: date.description, importedAt: now)
            figures.tag = export.tag
            figures.comment = export.comment
            figures.maxKilograms = export.figures.maxKg
            figures.averageKilograms = export.figures.averageKg
            figures.durationSeconds = export.figures.durationSeconds
            figures.mvcKilograms = export.figures.mvcKg
            figures.bodyWeightKilograms = export.figures.bodyWeightKg
            figures.rfd2080KilogramsPerSecond = export.figures.rfd2080
            figures.rfdIntervalKilogramsPerSecond = export.figures.rfdInterval
            figures.intervalTimeMillis = export.figures.intervalTimeMillis
            figures.intervalThresholdKilograms = export.figures.intervalThresholdKg
            figures.criticalForceKilograms = export.figures.criticalForceKg
            figures.fields = export.fields.map { ImportedFigures.Field(name: $0.name, value: $0.value) }
            figures.reps = export.figures.reps.map {
                ImportedFigures.Rep(
                    set: $0.set, rep: $0.rep, averageKilograms: $0.averageKg, peakKilograms: $0.peakKg, medianKilograms: $0.medianKg)
            }
            figures.contentDigest = try failing { () throws(ImportInput.Failure) in try ImportInput.contentDigest(opened) }
            figures.thresholdCrossings = export.figures.thresholdCrossings.map {
                ImportedFigures.Crossing(timeSeconds: $0.timeSeconds, weightKilograms: $0.weightKg)
            }
            let efforts = analysis.recording.efforts.enumerated().map { StoredEffort($0.element, index: $0.offset) }
            let comparison = ImportComparison(
                figures, efforts: efforts, maxKg: analysis.recording.maxKg.map(Double.init),
                wholeSeriesRFD2080: analysis.wholeSeriesRFD2080)
            return Prepared(
                opened: opened, export: export, analysis: analysis, draft: draft, endedAt: endedAt, figures: figures,
                comparison: comparison)
        }

        /// Who pulled and how, and the protocol, as a griptrack export wrote them, checked as `griptrack label` checks
        /// them: a value the store would refuse is exit 5 naming the field, never dropped quietly.
        static func setup(_ file: String, _ field: (String) -> String?) throws -> RecordingSetup {
            func number(_ name: String) throws -> Double? {
                guard let text = field(name) else { return nil }
                guard let value = Double(text), value.isFinite else {
                    throw CLIExit.invalidInput.fail("\(file): `\(name)` is not a number: \"\(text)\"")
                }
                return value
            }
            let setup = RecordingSetup(
                athlete: field(GriptrackCSV.athleteField), grip: field(GriptrackCSV.gripField),
                edgeMillimetres: try number(GriptrackCSV.edgeField), bodyWeightKilograms: try number(GriptrackCSV.bodyWeightField),
                protocolNotation: field(GriptrackCSV.protocolField).map(ProtocolNotation.storedText),
                protocolMaxKilograms: try number(GriptrackCSV.protocolMaxField))
            let check = RecordingDescription(
                athlete: setup.athlete, grip: setup.grip, edgeMillimetres: setup.edgeMillimetres,
                bodyWeightKilograms: setup.bodyWeightKilograms, protocolNotation: setup.protocolNotation,
                protocolMaxKilograms: setup.protocolMaxKilograms)
            if let problem = check.problem { throw CLIExit.invalidInput.fail("\(file): \(problem)") }
            return setup
        }

        /// Why a file is not stored although it is a good export.
        enum Skip {
            /// The same bytes were imported before, as this recording.
            case importedBefore(RecordingID)
            /// The same export came earlier in this command.
            case givenTwice

            /// `Skipped peak.csv: already imported as #3 …`.
            func line(_ file: String) -> String {
                switch self {
                case .importedBefore(let id):
                    "Skipped \(file): already imported as #\(id.rawValue) (the same file); "
                        + "`griptrack delete \(id.rawValue)` first to import it again."
                case .givenTwice:
                    "Skipped \(file): the same export was given earlier in this command; it is imported once."
                }
            }
        }

        /// `Imported peak.csv as #3: peak force test of 2026-03-14 09:31:55 ("right"), 690 samples, 1 effort, max
        /// 42.31 kg (app: 42.31 kg).`
        static func line(_ item: Prepared, storedID: RecordingID?, dryRun: Bool) -> String {
            let export = item.export
            let efforts = item.analysis.recording.efforts.count
            var text = dryRun ? "Would import \(export.fileName): " : "Imported \(export.fileName) as #\(storedID?.rawValue ?? 0): "
            text += "\(export.test.title) of \(export.date)"
            if let tag = export.tag { text += " (\"\(tag)\")" }
            text += ", \(export.series.count) samples, \(efforts) effort\(efforts == 1 ? "" : "s")"
            text += ", max " + ImportComparison.value(item.analysis.recording.maxKg.map(Double.init), "kg")
            if let row = item.comparison.figures.first(where: { $0.app != nil }) {
                text += " (app: \(row.name) " + ImportComparison.value(row.app, row.unit) + ")"
            }
            return text + "."
        }
    }
}

/// `griptrack import --json` (not `pro import`'s `ImportJSON`).
struct TindeqImportJSON: Encodable {
    struct Item: Encodable {
        var file: String
        var source: String
        var testType: String
        var testedAt: String
        var tag: String?
        var samples: Int
        var efforts: Int
        /// The new recording's id; absent on a dry run, when the free plan refused it, or when it was imported before.
        var id: Int64?
        /// The recording an earlier import of the same file made (this one was skipped).
        var alreadyImportedAs: Int64?
        /// The same export came earlier in this command (this one was skipped).
        var givenTwice: Bool?
        /// Stale samples dropped at the head of a series, and why.
        var notes: [String]
        var maxKg: Float?
        var avgKg: Float?
        var comparison: ImportComparison

        init(_ item: Griptrack.Import.Prepared, storedID: RecordingID?, skipped: Griptrack.Import.Skip?) {
            switch skipped {
            case .importedBefore(let id): alreadyImportedAs = id.rawValue
            case .givenTwice: givenTwice = true
            case nil: break
            }
            notes = item.export.droppedHeads.map(\.description)
            file = item.export.fileName
            source = item.export.source.rawValue
            testType = item.export.test.rawValue
            testedAt = item.export.date.description
            tag = item.export.tag
            samples = item.export.series.count
            efforts = item.analysis.recording.efforts.count
            id = storedID?.rawValue
            maxKg = item.analysis.recording.maxKg
            avgKg = item.analysis.recording.averageKg
            comparison = item.comparison
        }
    }

    var dryRun: Bool
    var imports: [Item]
    /// Why the free plan refused the rest, if it did.
    var refused: String?
}
