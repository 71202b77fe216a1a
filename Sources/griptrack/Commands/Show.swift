import ArgumentParser
import Foundation
import GripAnalysis
import GripProtocol
import GripStore
import GripSync

extension Griptrack {
    /// `griptrack show <id>`: one recording's efforts and force curve.
    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
            abstract: "Show a recording: its efforts and a force–time plot.",
            discussion: """
                Prints the recording's summary, a table of its efforts (peak, mean, duration, time to peak, \
                RFD 20–80 %, impulse) and a force–time plot drawn with braille characters. --svg FILE also writes \
                the chart as an SVG file (Pro). On the free plan only the last 5 recordings can be shown. \
                With --everywhere, ID is the start of a UUID from `griptrack list --everywhere` and the recording \
                is read from the sync server, whichever device recorded it (Pro). A recording stored with its \
                protocol (`record --protocol`, `label --protocol`) is scored against it without --protocol: rep by \
                rep, plus critical force for cf and the time to failure for endurance.
                """
        )

        @OptionGroup var common: CommonOptions
        @OptionGroup var place: SocketOption

        @Argument(help: "The recording's id (see `griptrack list`), or with --everywhere the start of its UUID.")
        var id: RecordingReference

        @Flag(help: "Read the recording from the sync server: the account's recordings from every device (Pro).")
        var everywhere = false

        @Option(help: ArgumentHelp("Write a force–time chart as SVG to this file (Pro).", valueName: "file"))
        var svg: String?

        @Flag(help: ArgumentHelp(
            "Read the recording as an all-out test (24 maximal 7 s pulls, 3 s apart) and add critical force and W′.",
            discussion: "Definitions: docs/metrics.md. Refused, with the reason, for fewer than 12 efforts."))
        var criticalForce = false

        @Flag(help: ArgumentHelp(
            "Read the recording as one hold to failure and add the time to failure.",
            discussion: "Failure: force under 20 % of the hold's peak for more than 1 s (docs/metrics.md)."))
        var endurance = false

        @Option(name: .customLong("protocol"), help: ArgumentHelp(
            "Match the efforts against a protocol, rep by rep: a built-in (max, repeaters, cf, rfd, endurance) or "
                + "notation such as \"repeaters 6x 7:3 @80%\" (docs/protocols.md).",
            valueName: "protocol"))
        var protocolText: String?

        @Option(name: .customLong("max-kg"), parsing: .unconditional, help: ArgumentHelp(
            "The athlete's max for this hand and grip (kg): a protocol's target band is a percentage of it.",
            valueName: "kg"))
        var maxKg: Double?

        @Flag(help: "Leave out the terminal plot.")
        var noPlot = false

        /// `--protocol`, parsed: a built-in's name, a `[protocols]` name of the configuration, or notation.
        var training: TrainingProtocol? {
            get throws {
                guard let protocolText else { return nil }
                return try ProtocolOption.parse(protocolText, configured: ProtocolOption.configured(common) ?? [])
            }
        }

        func validate() throws {
            if ProtocolOption.configured(common) != nil { _ = try training }
            try MaxKgOption.check(maxKg)
            if maxKg != nil && protocolText == nil { throw ValidationError("--max-kg sets a protocol's band; add --protocol.") }
        }

        func run() async throws {
            if everywhere {
                try await showEverywhere()
                return
            }
            let library = try LibraryChoice.open(common: common, socket: place)
            // The chart is Pro, the recording is not: on the free plan the rest is shown and the chart refused alone
            // (exit 3 after the output).
            var chartRefusal: (any Error)?
            if svg != nil {
                do { try library.plan().requirePro("The SVG chart (`griptrack show --svg`)") } catch { chartRefusal = error }
            }
            let chart = chartRefusal == nil ? svg : nil
            let (row, efforts) = try library.show(try id.requireLocal())
            let samples = try library.samples(of: row.id)
            try writeChart(to: chart, name: "Recording \(row.id)", row: row, efforts: efforts, samples: samples)
            // An imported test: the app's own figures beside griptrack's.
            let imported = try library.importComparison(of: row, efforts: efforts, samples: samples)
            let scored = try scoredProtocol(row)
            var critical = try criticalForce
                ? Self.criticalForceReport(efforts, bodyWeightKg: row.setup.bodyWeightKilograms) : nil
            var hold = endurance ? EnduranceReport(efforts: efforts, samples: samples) : nil
            if endurance && hold == nil { throw CLIExit.error.fail("no endurance hold: the recording has no efforts") }
            // A protocol's own figures come with it; asked for by flag they refuse when undefined, by default they are
            // left out quietly, since the rep table already shows what the recording did.
            if scored?.training.kind == .cf, critical == nil {
                critical = try? CriticalForceReport(efforts: efforts, bodyWeightKg: row.setup.bodyWeightKilograms)
            }
            if scored?.training.kind == .endurance, hold == nil { hold = EnduranceReport(efforts: efforts, samples: samples) }
            let matched = scored.map {
                ProtocolReport(
                    $0.training, notation: $0.notation, efforts: efforts, samples: samples, maxKg: $0.maxKg,
                    firstHand: row.hand == .left ? .left : .right)
            }
            if common.json {
                var json = ShowJSON(row: row, efforts: efforts, samples: samples)
                json.database = library.database
                json.imported = imported
                json.criticalForce = critical
                json.endurance = hold
                json.protocolMatch = matched
                try printJSON(json)
                if let chartRefusal { throw chartRefusal }
                return
            }
            print(Self.text(name: "Recording \(row.id)", row: row, efforts: efforts, samples: samples, plot: !noPlot),
                  terminator: "")
            if let critical { print("\n" + critical.text, terminator: "") }
            if let hold { print("\n" + hold.text, terminator: "") }
            if let matched { print("\n" + matched.text, terminator: "") }
            if let imported { print("\n" + imported.text, terminator: "") }
            if let chart { print("Chart written to \(chart)") }
            if let chartRefusal { throw chartRefusal }
        }

        /// The protocol to score: `--protocol` (with `--max-kg`) when given, else the one stored with the recording
        /// (with its stored max); nil for neither.
        private func scoredProtocol(
            _ row: RecordingRow
        ) throws -> (training: TrainingProtocol, notation: String, maxKg: Double?)? {
            if let protocolText, let training = try training { return (training, protocolText, maxKg) }
            guard let stored = row.setup.protocolNotation else { return nil }
            do throws(ProtocolNotationError) {
                return (try ProtocolNotation.parse(stored), stored, row.setup.protocolMaxKilograms)
            } catch {
                // Only a hand-edited file holds notation the store's check did not pass; say so, not crash or hide it.
                throw CLIExit.error.fail(
                    "recording \(row.id) stores protocol \"\(stored)\", which does not read: \(error). "
                        + "Set it again with `griptrack label \(row.id) --protocol P`.")
            }
        }

        /// `--everywhere`: the personal database's plan decides (sync is Pro), the server answers.
        private func showEverywhere() async throws {
            let detail = try await SyncSetup.recordingEverywhere(
                id, common: common, what: "`griptrack show --everywhere`")
            let row = detail.recording.localRow
            let name = "Recording \(detail.recording.shortID) from \(detail.recording.deviceName)"
            try writeChart(to: svg, name: name, row: row, efforts: detail.efforts, samples: detail.samples)
            if common.json {
                try printJSON(ShowEverywhereJSON(detail))
                return
            }
            print(Self.text(name: name, row: row, efforts: detail.efforts, samples: detail.samples, plot: !noPlot),
                  terminator: "")
            if let svg { print("Chart written to \(svg)") }
        }

        /// - Throws: exit 1 naming why the efforts are not an all-out test.
        static func criticalForceReport(_ efforts: [StoredEffort], bodyWeightKg: Double?) throws -> CriticalForceReport {
            do throws(CriticalForce.Problem) {
                return try CriticalForceReport(efforts: efforts, bodyWeightKg: bodyWeightKg)
            } catch {
                throw CLIExit.error.fail("no critical force: \(error)")
            }
        }

        private func writeChart(
            to svg: String?, name: String, row: RecordingRow, efforts: [StoredEffort], samples: [StoredSample]
        ) throws {
            guard let svg else { return }
            let chart = ForceChartSVG(
                samples: samples, efforts: efforts,
                title: "\(name) — \(Format.minute(row.startedAt)) — max \(Format.kg(row.maxKilograms))")
            do {
                try Data(chart.text.utf8).write(to: URL(fileURLWithPath: svg))
            } catch {
                throw CLIExit.error.fail("cannot write \(svg): \(error.localizedDescription)")
            }
        }

        static func text(
            name: String, row: RecordingRow, efforts: [StoredEffort], samples: [StoredSample], plot: Bool
        ) -> String {
            var lines: [String] = []
            let length = row.endedAt.map { Format.duration($0.timeIntervalSince(row.startedAt)) } ?? "still recording"
            lines.append("\(name): \(Format.second(row.startedAt)), \(length), \(row.profile) (\(row.device))")
            if let who = Format.who(row) { lines.append(who) }
            if let correction = row.correction {
                lines.append("Corrected \(Format.correction(correction)) (the sensor's calibration; raw = (kg − offset) ÷ scale)")
            }
            var summary = "\(efforts.count) effort\(efforts.count == 1 ? "" : "s"), max \(Format.kg(row.maxKilograms)), "
                + "average \(Format.kg(row.averageKilograms)), \(row.sampleCount) samples"
            if row.state != .complete { summary += ", \(row.state.rawValue)" }
            lines.append(summary)
            let figures = TestFigures(
                efforts: efforts, samples: samples, bodyWeightKg: row.setup.bodyWeightKilograms, profile: row.profile)
            if let text = figures.text { lines.append(text) }
            if !efforts.isEmpty {
                let origin = samples.first?.micros ?? efforts[0].startMicros
                lines.append("")
                lines.append("   #   start    dur     peak     mean  to peak   RFD 20–80   impulse")
                for effort in efforts {
                    let timed = figures.timingLeftOut == nil
                    let rfd = effort.rfdKilogramsPerSecond.flatMap { timed ? String(format: "%.1f kg/s", $0) : nil } ?? "—"
                    var line = String(effort.index + 1).leftPadded(4)
                    line += String(format: " %6.1f s %5.1f s", Double(effort.startMicros - origin) / 1e6,
                                   Double(effort.durationMicros) / 1e6)
                    line += Format.kg(effort.peakKilograms).leftPadded(9) + Format.kg(effort.meanKilograms).leftPadded(9)
                    line += timed ? String(format: " %6.2f s", Double(effort.timeToPeakMicros) / 1e6) : "      —  "
                    line += rfd.leftPadded(12) + String(format: " %6.1f kg·s", effort.impulseKilogramSeconds)
                    if effort.isOpenStart { line += "  open start (under way when the stream began)" }
                    if effort.isOpen { line += "  open (stream ended mid-effort)" }
                    lines.append(line)
                }
            }
            if plot {
                lines.append("")
                lines.append(ForcePlot(samples: samples, efforts: efforts).text.trimmingTrailingNewline())
            }
            return lines.joined(separator: "\n") + "\n"
        }
    }
}

extension String {
    func trimmingTrailingNewline() -> String {
        var text = self
        while text.last == "\n" { text.removeLast() }
        return text
    }
}

/// `griptrack show --json`.
struct ShowJSON: Encodable {
    struct EffortItem: Encodable {
        var index: Int
        var startS: Double
        var durationS: Double
        var peakKg: Float
        var meanKg: Float
        /// Absent for a device too coarse for it (`figures.timing_left_out`).
        var timeToPeakS: Double?
        var rfdKgS: Double?
        var impulseKgS: Double
        var baselineKg: Float
        var open: Bool
        var openStart: Bool
        /// RFD over 100 ms and 200 ms from onset (docs/metrics.md); absent where not defined.
        var rfd100msKgS: Double?
        var rfd200msKgS: Double?

        private enum CodingKeys: String, CodingKey {
            case index, startS, durationS, peakKg, meanKg, timeToPeakS, rfdKgS, impulseKgS, baselineKg, open, openStart
            // Spelled out: the encoder's snake case would write `rfd100ms`.
            case rfd100msKgS = "rfd_100ms_kg_s", rfd200msKgS = "rfd_200ms_kg_s"
        }
    }

    var recording: ListJSON.Item
    var efforts: [EffortItem]
    /// Which database the recording came from (`show --json`).
    var database: DatabaseChoice?
    /// For an imported test: the app's figures beside griptrack's (absent otherwise).
    var imported: ImportComparison? = nil
    /// `--critical-force`: the recording read as an all-out test (absent otherwise).
    var criticalForce: CriticalForceReport? = nil
    /// `--endurance`: time to failure (absent otherwise).
    var endurance: EnduranceReport? = nil
    /// `--protocol`: every planned rep against the efforts (absent otherwise).
    var protocolMatch: ProtocolReport? = nil
    /// MVC-7 and the fatigue index, where the recording has them.
    var figures: TestFigures

    init(row: RecordingRow, efforts: [StoredEffort], samples: [StoredSample]) {
        recording = ListJSON.Item(row)
        figures = TestFigures(
            efforts: efforts, samples: samples, bodyWeightKg: row.setup.bodyWeightKilograms, profile: row.profile)
        let timed = figures.timingLeftOut == nil
        let origin = samples.first?.micros ?? efforts.first?.startMicros ?? 0
        self.efforts = efforts.map {
            EffortItem(
                index: $0.index, startS: Double($0.startMicros - origin) / 1e6, durationS: Double($0.durationMicros) / 1e6,
                peakKg: jsonKg($0.peakKilograms), meanKg: jsonKg($0.meanKilograms), timeToPeakS: timed ? Double($0.timeToPeakMicros) / 1e6 : nil,
                rfdKgS: timed ? $0.rfdKilogramsPerSecond : nil, impulseKgS: $0.impulseKilogramSeconds,
                baselineKg: jsonKg($0.baselineKilograms), open: $0.isOpen, openStart: $0.isOpenStart)
        }
        for (index, rfds) in figures.effortRfds.enumerated() where index < self.efforts.count {
            self.efforts[index].rfd100msKgS = rfds.ms100
            self.efforts[index].rfd200msKgS = rfds.ms200
        }
    }
}

/// `griptrack show --everywhere --json`: the server's row (with its device) and the efforts as `show --json` has them.
struct ShowEverywhereJSON: Encodable {
    var recording: EverywhereJSON.Item
    var efforts: [ShowJSON.EffortItem]

    init(_ detail: RemoteRecordingDetail) {
        recording = EverywhereJSON.Item(detail.recording)
        efforts = ShowJSON(row: detail.recording.localRow, efforts: detail.efforts, samples: detail.samples).efforts
    }
}
