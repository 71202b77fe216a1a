import GRDB

/// A row of the `effort` table.
struct EffortRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "effort"

    var recordingId: Int64
    var effortIndex: Int
    var startMicros: Int64
    var endMicros: Int64
    var peakKilograms: Double
    var meanKilograms: Double
    var durationMicros: Int64
    var timeToPeakMicros: Int64
    var rfdKilogramsPerSecond: Double?
    var impulseKilogramSeconds: Double
    var baselineKilograms: Double
    var isOpen: Bool
    var isOpenStart: Bool

    init(recording: RecordingID, effort: StoredEffort) {
        recordingId = recording.rawValue
        effortIndex = effort.index
        startMicros = effort.startMicros
        endMicros = effort.endMicros
        peakKilograms = effort.peakKilograms
        meanKilograms = effort.meanKilograms
        durationMicros = effort.durationMicros
        timeToPeakMicros = effort.timeToPeakMicros
        rfdKilogramsPerSecond = effort.rfdKilogramsPerSecond
        impulseKilogramSeconds = effort.impulseKilogramSeconds
        baselineKilograms = effort.baselineKilograms
        isOpen = effort.isOpen
        isOpenStart = effort.isOpenStart
    }

    var effort: StoredEffort {
        StoredEffort(
            index: effortIndex, startMicros: startMicros, endMicros: endMicros, peakKilograms: peakKilograms,
            meanKilograms: meanKilograms, durationMicros: durationMicros, timeToPeakMicros: timeToPeakMicros,
            rfdKilogramsPerSecond: rfdKilogramsPerSecond, impulseKilogramSeconds: impulseKilogramSeconds,
            baselineKilograms: baselineKilograms, isOpenStart: isOpenStart, isOpen: isOpen
        )
    }
}
