import Foundation

/// One line griptrackd sends (docs/protocol.md; written against protocol 1.4, reading what 1.0–1.4 daemons send),
/// typed. Fields the client does not use are not decoded; unknown classes become `.unknown` and are ignored, as the
/// protocol asks.
enum DaemonMessage: Equatable, Sendable {
    case version(Version)
    case watch(enabled: Bool)
    /// Stream times (seconds) and forces (kg), same length.
    case samples(times: [Double], kilograms: [Double])
    case effort(EffortReport)
    case recording(RecordingReport)
    case device(DeviceReport)
    case recorder(RecorderReport)
    case record(RecordReply)
    case stop(StopReply)
    case tare(ok: Bool)
    case pro(ProReply)
    case status(StatusReport)
    case error(message: String)
    /// A class this client does not know (a newer daemon); ignored.
    case unknown(class: String)

    /// `VERSION`: the greeting.
    struct Version: Codable, Equatable, Sendable {
        var release: String
        var protoMajor: Int
        var protoMinor: Int
        /// 1.2: the daemon's database file.
        var database: String? = nil
    }

    /// `EFFORT` start/end.
    struct EffortReport: Codable, Equatable, Sendable {
        var event: String
        var start: Double
        var end: Double?
        var peakKg: Double?
        var meanKg: Double?
        var open: Bool?

        var duration: Double? { end.map { $0 - start } }
    }

    /// `RECORDING` start/end (the segmenter's sessions).
    struct RecordingReport: Codable, Equatable, Sendable {
        var event: String
        var start: Double
        var end: Double?
        var efforts: Int?
        var maxKg: Double?
        var avgKg: Double?
    }

    /// `DEVICE`: link events, state changes (1.1), battery, firmware, ….
    struct DeviceReport: Codable, Equatable, Sendable {
        var event: String
        var state: String?
        var address: String?
        var name: String?
        var batteryMv: Int?
        var firmware: String?
    }

    /// `RECORDER` (1.1): what the recorder did, sent to watchers.
    struct RecorderReport: Codable, Equatable, Sendable {
        var event: String
        var id: Int64?
        var explicit: Bool?
        var reason: String?
        var samples: Int?
        var efforts: Int?
    }

    /// The reply to `RECORD` (1.1): `started` or `refused`.
    struct RecordReply: Codable, Equatable, Sendable {
        var event: String
        var saving: Bool?
        var id: Int64?
        var access: String?
        var reason: String?
        var stored: Int?
        var limit: Int?
    }

    /// The reply to `STOP` (1.1): `saved` or `discarded`.
    struct StopReply: Codable, Equatable, Sendable {
        var event: String
        var id: Int64?
        var samples: Int?
        var efforts: Int?
        var maxKg: Double?
        var avgKg: Double?
    }

    /// The reply to `PRO` (1.1).
    struct ProReply: Codable, Equatable, Sendable {
        var pro: Bool
        var reason: String
        var stored: Int?
        var limit: Int?
    }

    /// The reply to `STATUS` (1.0 fields plus the 1.1 `recorder` and `access` objects).
    struct StatusReport: Codable, Equatable, Sendable {
        struct Device: Codable, Equatable, Sendable {
            var source: String?
            var state: String?
            var profile: String?
            var address: String?
            var name: String?
            var batteryMv: Int?
        }

        struct Recorder: Codable, Equatable, Sendable {
            var state: String
            var explicit: Bool?
            var saving: Bool?
            var id: Int64?
            var refusal: String?
        }

        struct AccessInfo: Codable, Equatable, Sendable {
            var pro: Bool
            var reason: String
            var stored: Int?
            var limit: Int?
        }

        struct Clients: Codable, Equatable, Sendable {
            var connected: Int
            var watching: Int
        }

        /// 1.4, with `[sync] url`: the daemon's push to PostgreSQL.
        struct Sync: Codable, Equatable, Sendable {
            var pendingRows: Int
            var lastAttemptAt: Double?
            var lastSuccessAt: Double?
            var lastError: String?
            var failures: Int
            /// A push in progress since then (Unix seconds).
            var pushingSince: Double?
        }

        var device: Device?
        var recorder: Recorder?
        var access: AccessInfo?
        var clients: Clients?
        var sync: Sync?
    }

    /// Parses one line (without its newline).
    /// - Throws: `DaemonClientError.malformed` when the line is not a JSON object with a string `class`, or a
    ///   known class lacks a required field.
    static func parse(_ line: some StringProtocol) throws(DaemonClientError) -> DaemonMessage {
        let data = Data(line.utf8)
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        do {
            let name = try decoder.decode(Envelope.self, from: data).class
            switch name {
            case "VERSION": return .version(try decoder.decode(Version.self, from: data))
            case "WATCH": return .watch(enabled: try decoder.decode(Enable.self, from: data).enable ?? false)
            case "SAMPLES":
                let samples = try decoder.decode(Samples.self, from: data)
                return .samples(times: samples.t, kilograms: samples.kg)
            case "EFFORT": return .effort(try decoder.decode(EffortReport.self, from: data))
            case "RECORDING": return .recording(try decoder.decode(RecordingReport.self, from: data))
            case "DEVICE": return .device(try decoder.decode(DeviceReport.self, from: data))
            case "RECORDER": return .recorder(try decoder.decode(RecorderReport.self, from: data))
            case "RECORD": return .record(try decoder.decode(RecordReply.self, from: data))
            case "STOP": return .stop(try decoder.decode(StopReply.self, from: data))
            case "TARE": return .tare(ok: try decoder.decode(Ok.self, from: data).ok ?? false)
            case "PRO": return .pro(try decoder.decode(ProReply.self, from: data))
            case "STATUS": return .status(try decoder.decode(StatusReport.self, from: data))
            case "ERROR": return .error(message: try decoder.decode(Message.self, from: data).message)
            default: return .unknown(class: name)
            }
        } catch {
            throw .malformed(line: String(line.prefix(200)))
        }
    }

    private struct Envelope: Decodable { var `class`: String }
    private struct Enable: Decodable { var enable: Bool? }
    private struct Samples: Decodable {
        var t: [Double]
        var kg: [Double]
    }
    private struct Ok: Decodable { var ok: Bool? }
    private struct Message: Decodable { var message: String }
}

/// The requests this client sends, one JSON line each.
enum DaemonRequest {
    static let status = #"{"class":"STATUS"}"#
    static let watch = #"{"class":"WATCH","enable":true}"#
    static let watchImmediate = #"{"class":"WATCH","enable":true,"pace":"immediate"}"#
    static let stop = #"{"class":"STOP"}"#
    static let tare = #"{"class":"TARE"}"#

    /// `RECORD` with the optional hand and label; `save` false for a live-only view.
    static func record(hand: String?, label: String?, save: Bool) -> String {
        var object: [String: Any] = ["class": "RECORD", "save": save]
        if let hand { object["hand"] = hand }
        if let label { object["label"] = label }
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }
}
