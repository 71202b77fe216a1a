import GripProtocol
import Hummingbird

/// The training screen's plan (docs/web.md, "Training").
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
}
