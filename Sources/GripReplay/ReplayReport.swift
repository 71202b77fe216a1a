import Foundation
import GripAnalysis
import GripWire

/// The result of replaying one capture: the `griptrack replay --json` object (schema in `docs/replay-json.md`).
///
/// Times are seconds from the first decoded sample, exact to the microsecond; forces are the device's float32
/// kilograms, written as the shortest decimal that reads back as the same float32, so a script can compare them
/// with the device's own values bit for bit.
package struct ReplayReport: Codable, Sendable, Equatable {
    package struct Frames: Codable, Sendable, Equatable {
        package var total: Int
        package var decoded: Int
        package var dropped: Int
        package var malformed: [String: Int]
    }

    package struct EffortReport: Codable, Sendable, Equatable {
        package var startS: Double
        package var endS: Double
        package var peakKg: Float
        package var meanKg: Float
        /// Absent for a device too coarse for it (`device.timing_left_out`).
        package var timeToPeakS: Double?
        package var rfdKgS: Double?
        package var impulseKgS: Double
        package var baselineKg: Float
        package var openStart: Bool
        package var open: Bool
        /// A board's load cells over the effort (the Motherboard); absent for a one-cell device.
        package var cells: CellsReport? = nil
    }

    /// How an effort's force fell on a board's cells: each cell's mean over the effort (kg, the samples' plain mean)
    /// and the left/right asymmetry index `(L − R) / (L + R)` of those means, as `griptrack asymmetry` computes it
    /// (absent unless both are above 0).
    package struct CellsReport: Codable, Sendable, Equatable {
        package var leftMeanKg: Double
        package var centreMeanKg: Double
        package var rightMeanKg: Double
        package var asymmetry: Double?
    }

    package struct RecordingReport: Codable, Sendable, Equatable {
        package var startS: Double
        package var endS: Double
        /// Absent when the recording has no effort.
        package var maxKg: Float?
        package var avgKg: Float?
        package var falseStartsDropped: Int
        package var efforts: [EffortReport]
    }

    /// How the force characteristic's handle was chosen.
    package struct ForceHandle: Codable, Sendable, Equatable {
        /// `0x000e` style.
        package var handle: String
        /// `discovery` (GATT discovery in the capture), `option` (`--handle`) or `content` (guessed from frames).
        package var source: String
    }

    package struct Device: Codable, Sendable, Equatable {
        package var profile: String
        package var batteryMv: UInt32?
        package var firmware: String?
        package var lowPowerWarnings: Int
        package var connects: Int
        package var disconnects: Int
        package var clockEpochs: Int
        package var clockWraps: Int
        /// Why efforts carry no RFD and time to peak: the device's values are too coarse (the Climbro's whole kg).
        package var timingLeftOut: String? = nil
        /// Reports the device numbered and the capture lacks (the Motherboard's sample number); absent otherwise.
        package var lostReports: Int? = nil
    }

    package struct Capture: Codable, Sendable, Equatable {
        package var datalink: UInt32?
        package var records: Int
        package var bytes: Int64
        /// Present when the capture is damaged: what is wrong and where; everything before it was replayed.
        package var error: String?
    }

    package var samples: Int
    package var frames: Frames
    package var recordings: [RecordingReport]
    package var forceHandle: ForceHandle
    package var device: Device
    package var capture: Capture

    /// Pretty, key-sorted JSON with snake_case keys: the golden-file format and `--json` output.
    package func jsonData() throws -> Data {
        // Written directly (ReplayReport+JSON.swift): the same bytes as the encoder below, without its start-up.
        if let bytes = directJSON() { return Data(bytes) }
        return try encodedWithJSONEncoder()
    }

    /// `jsonData()` through JSONEncoder: what the direct writer reproduces, and what it leaves to the encoder.
    func encodedWithJSONEncoder() throws -> Data {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        var data = try encoder.encode(self)
        data.append(0x0A)
        return data
    }
}

extension ReplayReport.EffortReport {
    init(_ effort: Effort, origin: Int64) {
        startS = seconds(effort.startMicros - origin)
        endS = seconds(effort.endMicros - origin)
        peakKg = effort.peakKg
        meanKg = effort.meanKg
        timeToPeakS = seconds(effort.timeToPeakMicros)
        rfdKgS = effort.rfdKgPerSecond
        impulseKgS = effort.impulseKgSeconds
        baselineKg = effort.baselineKg
        openStart = effort.openStart
        open = effort.open
    }
}

extension ReplayReport.RecordingReport {
    init(_ recording: Recording, origin: Int64) {
        startS = seconds(recording.startMicros - origin)
        endS = seconds(recording.endMicros - origin)
        maxKg = recording.maxKg
        avgKg = recording.averageKg
        falseStartsDropped = recording.falseStartsDropped
        efforts = recording.efforts.map { ReplayReport.EffortReport($0, origin: origin) }
    }
}

private func seconds(_ micros: Int64) -> Double { Double(micros) / 1_000_000 }
