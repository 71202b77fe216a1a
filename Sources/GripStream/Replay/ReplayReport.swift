import Foundation
import GripAnalysis
import GripWire

/// The result of replaying one capture: the `griptrack replay --json` object (schema in `docs/replay-json.md`).
///
/// Times are seconds from the first decoded sample, exact to the microsecond; forces are the device's float32
/// kilograms, written as the shortest decimal that reads back as the same float32, so a script can compare them
/// with the device's own values bit for bit.
public struct ReplayReport: Codable, Sendable, Equatable {
    public struct Frames: Codable, Sendable, Equatable {
        public var total: Int
        public var decoded: Int
        public var dropped: Int
        public var malformed: [String: Int]
    }

    public struct EffortReport: Codable, Sendable, Equatable {
        public var startS: Double
        public var endS: Double
        public var peakKg: Float
        public var meanKg: Float
        public var timeToPeakS: Double
        public var rfdKgS: Double?
        public var impulseKgS: Double
        public var baselineKg: Float
        public var openStart: Bool
        public var open: Bool
    }

    public struct RecordingReport: Codable, Sendable, Equatable {
        public var startS: Double
        public var endS: Double
        /// Absent when the recording has no effort.
        public var maxKg: Float?
        public var avgKg: Float?
        public var falseStartsDropped: Int
        public var efforts: [EffortReport]
    }

    /// How the force characteristic's handle was chosen.
    public struct ForceHandle: Codable, Sendable, Equatable {
        /// `0x000e` style.
        public var handle: String
        /// `discovery` (GATT discovery in the capture), `option` (`--handle`) or `content` (guessed from frames).
        public var source: String
    }

    public struct Device: Codable, Sendable, Equatable {
        public var profile: String
        public var batteryMv: UInt32?
        public var firmware: String?
        public var lowPowerWarnings: Int
        public var connects: Int
        public var disconnects: Int
        public var clockEpochs: Int
        public var clockWraps: Int
    }

    public struct Capture: Codable, Sendable, Equatable {
        public var datalink: UInt32?
        public var records: Int
        public var bytes: Int64
        /// Present when the capture is damaged: what is wrong and where; everything before it was replayed.
        public var error: String?
    }

    public var samples: Int
    public var frames: Frames
    public var recordings: [RecordingReport]
    public var forceHandle: ForceHandle
    public var device: Device
    public var capture: Capture

    /// Pretty, key-sorted JSON with snake_case keys: the golden-file format and `--json` output.
    public func jsonData() throws -> Data {
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
