import ArgumentParser
import Foundation
import GripAnalysis
import GripImport
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
                files. Every file is read and checked first: a malformed one is refused with file:line and what is \
                wrong (exit 5), and then nothing is stored. Each file then becomes one recording, stored whole in \
                one transaction through the free plan's limit, with griptrack's efforts and the app's own figures \
                beside them (`griptrack show ID` compares them). A recording the limit refuses is not stored, the \
                reason is printed and griptrack exits 3; files stored before it stay stored. Layouts: docs/import.md.
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

        /// One file, read and analysed, ready to store.
        struct Prepared {
            var export: TindeqExport
            var analysis: ImportAnalysis
            var draft: RecordingDraft
            var endedAt: Date
            var figures: ImportedFigures
            var samples: [StoredSample]
            var comparison: ImportComparison
        }

        func run() throws {
            // Everything is read, parsed and analysed before anything is stored, so a bad file stores nothing.
            var prepared: [Prepared] = []
            for path in files {
                let export: TindeqExport
                do {
                    export = try ImportInput.read(path)
                } catch {
                    switch error {
                    case .unreadable(let message): throw CLIExit.error.fail(message)
                    case .invalid(let problem): throw CLIExit.invalidInput.fail(problem.description)
                    }
                }
                prepared.append(try Self.prepare(export, now: Date()))
            }
            // Open the store only to store (a dry run needs no database).
            let session = dryRun ? nil : try common.session()
            var results: [TindeqImportJSON.Item] = []
            var refusal: String? = nil
            for (index, item) in prepared.enumerated() {
                var storedID: RecordingID? = nil
                if let session, refusal == nil {
                    do {
                        storedID = try session.store.saveImportedRecording(
                            item.analysis.recording, samples: item.samples, draft: item.draft, endedAt: item.endedAt,
                            figures: item.figures, context: session.context, now: Date())
                    } catch .refused(let reason, _) {
                        let left = prepared.count - index
                        refusal = left == 1
                            ? "\(item.export.fileName) was not imported: \(reason)"
                            : "\(item.export.fileName) and the \(left - 1) file\(left == 2 ? "" : "s") after it were not imported: \(reason)"
                    } catch {
                        throw CLIExit.storeFailure(error)
                    }
                }
                results.append(TindeqImportJSON.Item(item, storedID: storedID))
                if !common.json, refusal == nil || storedID != nil {
                    print(Self.line(item, storedID: storedID, dryRun: dryRun))
                }
            }
            if common.json {
                try printJSON(TindeqImportJSON(dryRun: dryRun, imports: results, refused: refusal))
            } else if dryRun {
                print("Dry run: nothing was stored.")
            }
            if let refusal { throw CLIExit.proRequired.fail(refusal) }
        }

        /// Analyses an export and builds what the store takes.
        static func prepare(_ export: TindeqExport, now: Date) throws -> Prepared {
            let analysis = export.analyse()
            let date = export.date
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = .current
            let parts = DateComponents(
                year: date.year, month: date.month, day: date.day, hour: date.hour, minute: date.minute, second: date.second)
            guard let startedAt = calendar.date(from: parts) else {
                throw CLIExit.invalidInput.fail("\(export.fileName): the date \(date) does not exist in the local time zone")
            }
            let first = export.samples.first?.micros ?? 0
            let last = export.samples.last?.micros ?? first
            let endedAt = startedAt.addingTimeInterval(Double(last - first) / 1e6)
            let name = URL(fileURLWithPath: export.fileName).lastPathComponent
            let draft: RecordingDraft
            switch export.source {
            case .tindeqApp:
                draft = RecordingDraft(
                    startedAt: startedAt, device: "Tindeq app export \(name)", profile: "Tindeq Progressor",
                    label: export.tag.map { String($0.utf8.prefix(200)) ?? $0 })
            case .griptrack:
                draft = RecordingDraft(
                    startedAt: startedAt, device: export.field("device").flatMap { $0.isEmpty ? nil : $0 } ?? "griptrack export \(name)",
                    profile: export.field("profile").flatMap { $0.isEmpty ? nil : $0 } ?? "Tindeq Progressor")
            }
            var figures = ImportedFigures(
                source: export.source.rawValue, fileName: export.fileName, testType: export.test.rawValue,
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
            figures.thresholdCrossings = export.figures.thresholdCrossings.map {
                ImportedFigures.Crossing(timeSeconds: $0.timeSeconds, weightKilograms: $0.weightKg)
            }
            let samples = export.samples.map { StoredSample(micros: $0.micros, kilograms: $0.kilograms) }
            let efforts = analysis.recording.efforts.enumerated().map { StoredEffort($0.element, index: $0.offset) }
            let comparison = ImportComparison(
                figures, efforts: efforts, maxKg: analysis.recording.maxKg.map(Double.init), samples: samples)
            return Prepared(
                export: export, analysis: analysis, draft: draft, endedAt: endedAt, figures: figures, samples: samples,
                comparison: comparison)
        }

        /// `Imported peak.csv as #3: peak force test of 2026-03-14 09:31:55 ("right"), 690 samples, 1 effort, max
        /// 42.31 kg (app: 42.31 kg).`
        static func line(_ item: Prepared, storedID: RecordingID?, dryRun: Bool) -> String {
            let export = item.export
            let efforts = item.analysis.recording.efforts.count
            var text = dryRun ? "Would import \(export.fileName): " : "Imported \(export.fileName) as #\(storedID?.rawValue ?? 0): "
            text += "\(export.test.title) of \(export.date)"
            if let tag = export.tag { text += " (\"\(tag)\")" }
            text += ", \(export.samples.count) samples, \(efforts) effort\(efforts == 1 ? "" : "s")"
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
        /// The new recording's id; absent on a dry run or when the free plan refused it.
        var id: Int64?
        var maxKg: Float?
        var avgKg: Float?
        var comparison: ImportComparison

        init(_ item: Griptrack.Import.Prepared, storedID: RecordingID?) {
            file = item.export.fileName
            source = item.export.source.rawValue
            testType = item.export.test.rawValue
            testedAt = item.export.date.description
            tag = item.export.tag
            samples = item.export.samples.count
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
