import Foundation

/// One line griptrackd sends (docs/protocol.md), typed: the daemon writes each line from these payloads and every
/// client reads the same payloads back (`parse`), reading what older daemons sent too. Unknown classes become
/// `.unknown` and are ignored, as the protocol asks. The payload types live in `Messages/`, a file per group.
package enum DaemonMessage: Equatable, Sendable {
    case version(Version)
    case watch(WatchReply)
    /// Stream times (seconds) and forces (kg, float32 widened), same length.
    case samples(times: [Double], kilograms: [Double])
    case effort(EffortReport)
    case recording(RecordingReport)
    case device(DeviceReport)
    case recorder(RecorderReport)
    case record(RecordReply)
    case stop(StopReply)
    case tare(ok: Bool)
    case pro(ProReply)
    case proImport(ImportReply)
    case status(StatusReply)
    case plan(PlanReply)
    case list(ListReply)
    case show(ShowReply)
    case label(LabelReply)
    case read(ReadReply)
    case stats(StatsReply)
    case history(HistoryReply)
    case delete(DeleteReply)
    case web(WebReply)
    case error(RequestProblem)
    /// A class this client does not know (a newer daemon); ignored.
    case unknown(class: String)

    /// Parses one line (without its newline).
    /// - Returns: nil when the line is not a JSON object with a string `class`, or a known class lacks a required
    ///   field.
    package static func parse(_ line: some StringProtocol) -> DaemonMessage? {
        let data = Data(line.utf8)
        let decoder = Self.decoder
        do {
            let name = try decoder.decode(Envelope.self, from: data).class
            switch name {
            case "VERSION": return .version(try decoder.decode(Version.self, from: data))
            case "WATCH": return .watch(try decoder.decode(WatchReply.self, from: data))
            case "SAMPLES":
                let samples = try decoder.decode(Samples.self, from: data)
                return .samples(times: samples.t, kilograms: samples.kg.map(Double.init))
            case "EFFORT": return .effort(try decoder.decode(EffortReport.self, from: data))
            case "RECORDING": return .recording(try decoder.decode(RecordingReport.self, from: data))
            case "DEVICE": return .device(try decoder.decode(DeviceReport.self, from: data))
            case "RECORDER": return .recorder(try decoder.decode(RecorderReport.self, from: data))
            case "RECORD": return .record(try decoder.decode(RecordReply.self, from: data))
            case "STOP": return .stop(try decoder.decode(StopReply.self, from: data))
            case "TARE": return .tare(ok: try decoder.decode(Ok.self, from: data).ok ?? false)
            case "PRO":
                if try decoder.decode(Action.self, from: data).action == "import" {
                    return .proImport(try decoder.decode(ImportReply.self, from: data))
                }
                return .pro(try decoder.decode(ProReply.self, from: data))
            case "STATUS": return .status(try decoder.decode(StatusReply.self, from: data))
            case "PLAN": return .plan(try decoder.decode(PlanReply.self, from: data))
            case "LIST": return .list(try decoder.decode(ListReply.self, from: data))
            case "SHOW": return .show(try decoder.decode(ShowReply.self, from: data))
            case "LABEL": return .label(try decoder.decode(LabelReply.self, from: data))
            case "READ": return .read(try decoder.decode(ReadReply.self, from: data))
            case "STATS": return .stats(try decoder.decode(StatsReply.self, from: data))
            case "HISTORY": return .history(try decoder.decode(HistoryReply.self, from: data))
            case "DELETE": return .delete(try decoder.decode(DeleteReply.self, from: data))
            case "WEB": return .web(try decoder.decode(WebReply.self, from: data))
            case "ERROR": return .error(try decoder.decode(RequestProblem.self, from: data))
            default: return .unknown(class: name)
            }
        } catch {
            return nil
        }
    }

    /// One decoder for every line (a client such as the MQTT bridge parses 25 a second); its options are set once,
    /// here, and Foundation's `JSONDecoder` is Sendable, so threads may share it.
    private static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return decoder
    }()

    private struct Envelope: Decodable { var `class`: String }
    private struct Action: Decodable { var action: String? }
    private struct Ok: Decodable { var ok: Bool? }
}
