import Foundation

/// One line griptrackd sends, as its clients read it (docs/protocol.md; reading what 1.0–1.5 daemons send), typed. Fields the client does not use are not decoded; unknown classes become `.unknown` and are ignored, as the
/// protocol asks.
package enum DaemonMessage: Equatable, Sendable {
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
    package struct Version: Codable, Equatable, Sendable {
        package var release: String
        package var protoMajor: Int
        package var protoMinor: Int
        /// 1.2: the daemon's database file.
        package var database: String? = nil

        package init(release: String, protoMajor: Int, protoMinor: Int, database: String? = nil) {
            self.release = release
            self.protoMajor = protoMajor
            self.protoMinor = protoMinor
            self.database = database
        }
    }

    /// `EFFORT` start/end.
    package struct EffortReport: Codable, Equatable, Sendable {
        package var event: String
        package var start: Double
        package var end: Double?
        package var peakKg: Double?
        package var meanKg: Double?
        package var open: Bool?

        package var duration: Double? { end.map { $0 - start } }
    }

    /// `RECORDING` start/end (the segmenter's sessions).
    package struct RecordingReport: Codable, Equatable, Sendable {
        package var event: String
        package var start: Double
        package var end: Double?
        package var efforts: Int?
        package var maxKg: Double?
        package var avgKg: Double?
    }

    /// `DEVICE`: link events, state changes (1.1), battery, firmware, ….
    package struct DeviceReport: Codable, Equatable, Sendable {
        package var event: String
        package var state: String?
        package var address: String?
        package var name: String?
        package var batteryMv: Int?
        package var firmware: String?
    }

    /// `RECORDER` (1.1): what the recorder did, sent to watchers.
    package struct RecorderReport: Codable, Equatable, Sendable {
        package var event: String
        package var id: Int64?
        package var explicit: Bool?
        package var reason: String?
        package var samples: Int?
        package var efforts: Int?
    }

    /// The reply to `RECORD` (1.1): `started` or `refused`.
    package struct RecordReply: Codable, Equatable, Sendable {
        package var event: String
        package var saving: Bool?
        package var id: Int64?
        package var access: String?
        package var reason: String?
        package var stored: Int?
        package var limit: Int?
    }

    /// The reply to `STOP` (1.1): `saved` or `discarded`.
    package struct StopReply: Codable, Equatable, Sendable {
        package var event: String
        package var id: Int64?
        package var samples: Int?
        package var efforts: Int?
        package var maxKg: Double?
        package var avgKg: Double?
    }

    /// The reply to `PRO` (1.1).
    package struct ProReply: Codable, Equatable, Sendable {
        package var pro: Bool
        package var reason: String
        package var stored: Int?
        package var limit: Int?
    }

    /// The reply to `STATUS` (1.0 fields plus the 1.1 `recorder` and `access` objects).
    package struct StatusReport: Codable, Equatable, Sendable {
        package struct Device: Codable, Equatable, Sendable {
            package var source: String?
            package var state: String?
            package var profile: String?
            package var address: String?
            package var name: String?
            package var batteryMv: Int?
        }

        package struct Recorder: Codable, Equatable, Sendable {
            package var state: String
            package var explicit: Bool?
            package var saving: Bool?
            package var id: Int64?
            package var refusal: String?
        }

        package struct AccessInfo: Codable, Equatable, Sendable {
            package var pro: Bool
            package var reason: String
            package var stored: Int?
            package var limit: Int?
        }

        package struct Clients: Codable, Equatable, Sendable {
            package var connected: Int
            package var watching: Int
        }

        /// 1.4, with `[sync] url`: the daemon's push to PostgreSQL.
        package struct Sync: Codable, Equatable, Sendable {
            package var pendingRows: Int
            package var lastAttemptAt: Double?
            package var lastSuccessAt: Double?
            package var lastError: String?
            package var failures: Int
            /// A push in progress since then (Unix seconds).
            package var pushingSince: Double?
        }

        package var device: Device?
        package var recorder: Recorder?
        package var access: AccessInfo?
        package var clients: Clients?
        package var sync: Sync?
    }

    /// Parses one line (without its newline).
    /// - Returns: nil when the line is not a JSON object with a string `class`, or a known class lacks a required
    ///   field.
    package static func parse(_ line: some StringProtocol) -> DaemonMessage? {
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
            return nil
        }
    }

    private struct Envelope: Decodable { var `class`: String }
    private struct Enable: Decodable { var enable: Bool? }
    private struct Samples: Decodable {
        package var t: [Double]
        package var kg: [Double]
    }
    private struct Ok: Decodable { var ok: Bool? }
    private struct Message: Decodable { var message: String }
}
