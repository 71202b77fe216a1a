import Foundation
import GripProtocol
import Hummingbird
import NIOCore

/// The training screen's plan, and the protocol stored with the recording its run starts (docs/web.md, "Training").
extension WebServer {
    /// `GET /api/protocols/plan?text=…&hand=left|right`: a built-in's name or notation, planned by GripAnalysis'
    /// engine; 400 with the engine's words (`column 14: …`) for text it cannot read.
    static func protocolPlan(_ request: Request) throws -> Response {
        guard let text = request.uri.queryParameters["text"].map(String.init), !text.isEmpty else {
            throw WebError.badRequest("give the protocol as text, e.g. /api/protocols/plan?text=repeaters%206x%207:3%20@80%25")
        }
        let hand = request.uri.queryParameters["hand"].map(String.init).flatMap { $0.isEmpty ? nil : $0 }
        switch TrainingPlanJSON.resolve(text, firstHand: hand) {
        case .success(let plan): return try document(plan)
        case .failure(let problem): throw WebError.badRequest(problem.message)
        }
    }

    /// The protocol a `POST /api/record` body names (`protocol`, `protocol_max_kg`), checked as the daemon's LABEL
    /// checks it, before anything starts; nil when it names none.
    static func protocolRun(_ text: String?, maxKg: Double?) throws(WebError) -> (text: String, maxKg: Double?)? {
        guard let text else {
            if maxKg != nil { throw .badRequest("protocol_max_kg is the max of a protocol's band; give protocol too") }
            return nil
        }
        guard text.count <= TrainingPlanJSON.textLimit else {
            throw .badRequest("protocol: at most \(TrainingPlanJSON.textLimit) characters, got \(text.count)")
        }
        if case .failure(let problem) = DaemonRequest.storeProtocol(id: 1, text: text, maxKg: maxKg) {
            throw .badRequest(problem.message)
        }
        return (text, maxKg)
    }

    /// RECORD, then, when it started a saved recording and a protocol was named, LABEL with the protocol (protocol
    /// 1.8), so `griptrack show` scores the run without `--protocol`. The reply is RECORD's either way: a LABEL the
    /// daemon refuses is logged, and the recording goes on.
    func record(_ request: DaemonRequest, storing run: (text: String, maxKg: Double?)?) async throws -> Response {
        let line = try await control.ask(request)
        guard let run, DaemonLink.lineClass(line) == "RECORD",
            case .record(let reply) = DaemonMessage.parse(String(buffer: line)),
            reply.event == "started", reply.saving == true, let id = reply.id,
            case .success(let label) = DaemonRequest.storeProtocol(id: id, text: run.text, maxKg: run.maxKg)
        else { return try Self.reply(line) }
        let answer = try await DaemonLink.ask(path: settings.socketPath, label)
        if DaemonLink.lineClass(answer) == "ERROR" {
            logger.info("Protocol not stored with the recording", metadata: ["recording.id": "\(id)", "web.reply": "\(String(buffer: answer))"])
        }
        return try Self.reply(line)
    }
}
