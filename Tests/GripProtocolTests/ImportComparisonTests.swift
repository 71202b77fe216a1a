import Foundation
import GripProtocol
import Testing

/// The one comparison type: the `SHOW` reply's `imported` (written by ``JSONLine``) and `show --json`'s (written by
/// ``JSONOutput``) carry the same numbers under the same keys.
@Suite("Import comparison")
struct ImportComparisonTests {
    static let comparison = ImportComparison(
        source: "tindeq-app", fileName: "peak-force.csv", testType: "peak", testedAt: "2026-03-14 09:31:55",
        tag: "right half crimp", comment: nil,
        figures: [
            .init(name: "max", unit: "kg", app: 42.2697786, griptrack: Double(Float(42.26978))),
            .init(name: "RFD 20–80", unit: "kg/s", app: 289.86, griptrack: 290.123456789),
            .init(name: "critical force", unit: "kg", app: 20.3156381, griptrack: nil),
        ],
        reps: [.init(set: 1, rep: 1, appAvgKg: nil, appPeakKg: nil, appMedianKg: 40.1418555, effortIndex: 0, meanKg: 38.901478, peakKg: 40.268864)],
        fields: [.init(name: "comment", value: "")],
        thresholdCrossings: [.init(timeSeconds: 1.058717, weightKilograms: 3.7524884)])

    @Test("griptrack's kg figure is its float32's shortest decimal; the difference is taken from the unshortened value")
    func rowShortensAfterTheDifference() {
        let max = Self.comparison.figures[0]
        #expect(max.griptrack == 42.26978)
        #expect(max.difference == Double(Float(42.26978)) - 42.2697786)
        let rfd = Self.comparison.figures[1]
        #expect(rfd.griptrack == 290.123456789, "only kg figures are float32 forces")
        #expect(Self.comparison.figures[2].difference == nil)
    }

    @Test("the SHOW reply's imported reads back as show --json's document, key for key")
    func lineAndDocumentAgree() throws {
        let object = try JSONSerialization.jsonObject(with: Data(Self.comparison.object.utf8)) as? NSDictionary
        let document = try JSONSerialization.jsonObject(with: try JSONOutput.document(Self.comparison)) as? NSDictionary
        #expect(object != nil && object == document, "line \(Self.comparison.object)")
        let line = DaemonMessage.ShowReply(
            recording: .init(
                id: 1, uuid: "1b4e28ba-2fa1-11d2-883f-0016d3cca427", startedAt: 1_773_480_715, endedAt: nil,
                device: "Tindeq Progressor", profile: "Tindeq Progressor", hand: nil, label: nil, state: "complete",
                maxKg: 42.26978, avgKg: nil, samples: 658, efforts: 0, athlete: nil, grip: nil, edgeMm: nil,
                bodyWeightKg: nil, protocol: nil, protocolMaxKg: nil),
            efforts: [], imported: Self.comparison
        ).line
        guard case .show(let reply) = DaemonMessage.parse(line.dropLast()) else {
            Issue.record("not read back: \(line)")
            return
        }
        #expect(reply.imported == Self.comparison)
        #expect(reply.line == line)
    }
}
