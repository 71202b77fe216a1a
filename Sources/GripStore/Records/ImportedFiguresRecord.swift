import Foundation
import GRDB

/// A row of the `importedFigures` table; the header fields and crossings are JSON text (read back whole, never queried).
struct ImportedFiguresRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "importedFigures"

    var recordingId: Int64
    var source: String
    var fileName: String
    var testType: String
    var testedAt: String
    var tag: String?
    var comment: String?
    var maxKilograms: Double?
    var averageKilograms: Double?
    var durationSeconds: Double?
    var mvcKilograms: Double?
    var bodyWeightKilograms: Double?
    var rfd2080KilogramsPerSecond: Double?
    var rfdIntervalKilogramsPerSecond: Double?
    var intervalTimeMillis: Double?
    var intervalThresholdKilograms: Double?
    var criticalForceKilograms: Double?
    var fieldsJSON: String
    var thresholdCrossingsJSON: String
    var importedAt: Date
    var contentDigest: String?

    init(recording: RecordingID, figures: ImportedFigures) throws {
        recordingId = recording.rawValue
        source = figures.source
        fileName = figures.fileName
        testType = figures.testType
        testedAt = figures.testedAt
        tag = figures.tag
        comment = figures.comment
        maxKilograms = figures.maxKilograms
        averageKilograms = figures.averageKilograms
        durationSeconds = figures.durationSeconds
        mvcKilograms = figures.mvcKilograms
        bodyWeightKilograms = figures.bodyWeightKilograms
        rfd2080KilogramsPerSecond = figures.rfd2080KilogramsPerSecond
        rfdIntervalKilogramsPerSecond = figures.rfdIntervalKilogramsPerSecond
        intervalTimeMillis = figures.intervalTimeMillis
        intervalThresholdKilograms = figures.intervalThresholdKilograms
        criticalForceKilograms = figures.criticalForceKilograms
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        fieldsJSON = String(decoding: try encoder.encode(figures.fields), as: UTF8.self)
        thresholdCrossingsJSON = String(decoding: try encoder.encode(figures.thresholdCrossings), as: UTF8.self)
        importedAt = figures.importedAt
        contentDigest = figures.contentDigest
    }

    func figures(reps: [ImportedRepRecord]) throws -> ImportedFigures {
        var figures = ImportedFigures(
            source: source, fileName: fileName, testType: testType, testedAt: testedAt, importedAt: importedAt)
        figures.tag = tag
        figures.comment = comment
        figures.maxKilograms = maxKilograms
        figures.averageKilograms = averageKilograms
        figures.durationSeconds = durationSeconds
        figures.mvcKilograms = mvcKilograms
        figures.bodyWeightKilograms = bodyWeightKilograms
        figures.rfd2080KilogramsPerSecond = rfd2080KilogramsPerSecond
        figures.rfdIntervalKilogramsPerSecond = rfdIntervalKilogramsPerSecond
        figures.intervalTimeMillis = intervalTimeMillis
        figures.intervalThresholdKilograms = intervalThresholdKilograms
        figures.criticalForceKilograms = criticalForceKilograms
        figures.contentDigest = contentDigest
        let decoder = JSONDecoder()
        figures.fields = try decoder.decode([ImportedFigures.Field].self, from: Data(fieldsJSON.utf8))
        figures.thresholdCrossings = try decoder.decode([ImportedFigures.Crossing].self, from: Data(thresholdCrossingsJSON.utf8))
        figures.reps = reps.map {
            ImportedFigures.Rep(
                set: $0.setNumber, rep: $0.repNumber, averageKilograms: $0.averageKilograms, peakKilograms: $0.peakKilograms,
                medianKilograms: $0.medianKilograms)
        }
        return figures
    }
}

/// A row of the `importedRep` table.
struct ImportedRepRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "importedRep"

    var recordingId: Int64
    var setNumber: Int
    var repNumber: Int
    var averageKilograms: Double?
    var peakKilograms: Double?
    var medianKilograms: Double?
}
