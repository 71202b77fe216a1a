import ArgumentParser
import Foundation
import GripStore

extension Griptrack {
    /// `griptrack compare <a> <b>`: two recordings side by side (Pro).
    struct Compare: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "compare",
            abstract: "Compare two recordings: their figures side by side and their force curves (Pro).",
            discussion: """
                Prints each recording's efforts, max, average, MVC-7, best RFD 20–80 % and 0–200 ms and fatigue \
                index (as `griptrack show` defines them, docs/metrics.md), with the change from A to B in kg and in \
                % of A, then both force–time plots on the same scales. --svg FILE draws both curves over each other, \
                each from its own first sample. --json prints the same figures.
                """
        )

        @OptionGroup var common: CommonOptions
        @OptionGroup var place: SocketOption

        @Argument(help: "The first recording's id (A; see `griptrack list`).")
        var first: RecordingIDArgument

        @Argument(help: "The second recording's id (B).")
        var second: RecordingIDArgument

        @Option(help: ArgumentHelp("Write both force–time curves over each other as SVG to this file.", valueName: "file"))
        var svg: String?

        @Flag(help: "Leave out the terminal plots.")
        var noPlot = false

        func run() throws {
            let library = try LibraryChoice.open(common: common, socket: place)
            try library.plan().requirePro("Comparing recordings (`griptrack compare`)")
            let (rowA, effortsA) = try library.show(first.id)
            let (rowB, effortsB) = try library.show(second.id)
            let samplesA = try library.samples(of: rowA.id)
            let samplesB = try library.samples(of: rowB.id)
            let comparison = RecordingComparison(
                first: .init(row: rowA, efforts: effortsA, samples: samplesA),
                second: .init(row: rowB, efforts: effortsB, samples: samplesB))
            if let svg {
                var chart = ForceChartSVG(
                    samples: samplesA, efforts: [],
                    title: "Recording \(rowA.id) and recording \(rowB.id)")
                chart.name = "A: " + RecordingComparison.heading(comparison.first)
                chart.overlays = [("B: " + RecordingComparison.heading(comparison.second), samplesB)]
                do {
                    try Data(chart.text.utf8).write(to: URL(fileURLWithPath: svg))
                } catch {
                    throw CLIExit.error.fail("cannot write \(svg): \(error.localizedDescription)")
                }
            }
            if common.json {
                try printJSON(comparison)
                return
            }
            print(comparison.text, terminator: "")
            if !noPlot {
                // The same kg axis and time span for both, so the curves can be read against each other.
                let spans = [samplesA, samplesB].map { Double(($0.last?.micros ?? 0)) - Double(($0.first?.micros ?? 0)) }
                let top = ForcePlot.niceCeiling(Double([rowA.maxKilograms, rowB.maxKilograms].compactMap { $0 }.max() ?? 1))
                for (name, samples, efforts) in [("A", samplesA, effortsA), ("B", samplesB, effortsB)] {
                    var plot = ForcePlot(samples: samples, efforts: efforts)
                    plot.sharedTopKg = top
                    plot.sharedSpanMicros = max(1, spans.max() ?? 1)
                    print("\n\(name):\n" + plot.text, terminator: "")
                }
            }
            if let svg { print("Chart written to \(svg)") }
        }
    }
}
