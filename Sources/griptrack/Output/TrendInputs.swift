import Foundation
import GripAnalysis
import GripStore

/// One recording's figures for `griptrack trends`, computed as `show` computes them (docs/metrics.md): MVC and MVC-7
/// as ``TestFigures``, the best RFD 20–80 % of its efforts where the device is fast enough for one, and critical
/// force only for a recording stored with a cf protocol (any other recording is not an all-out test).
enum TrendInputs {
    static func test(row: RecordingRow, efforts: [StoredEffort], samples: [StoredSample]) -> TrainingTrends.Test {
        let figures = TestFigures(efforts: efforts, samples: samples)
        var values: [TrainingTrends.Metric: Double] = [:]
        values[.mvc] = figures.mvcKg
        values[.mvc7] = figures.mvc7Kg
        values[.rfd] = efforts.compactMap(\.rfdKilogramsPerSecond).max()
        let notation = row.setup.protocolNotation
        if let notation, (try? ProtocolNotation.parse(notation))?.kind == .cf {
            values[.cf] = (try? CriticalForceReport(efforts: efforts))?.criticalForceKg
        }
        return TrainingTrends.Test(
            id: row.id.rawValue, startSeconds: row.startedAt.timeIntervalSince1970,
            key: TrainingTrends.Key(athlete: row.setup.athlete, hand: row.hand, grip: row.setup.grip, protocolNotation: notation),
            values: values)
    }
}
