import Foundation

extension DaemonRequest {
    /// The request as a client sends it: one JSON object, "class" first, newline included. ``decode(_:now:)`` of
    /// it gives the request back (an expiry to the second).
    package var line: String {
        var line = JSONLine(class: className)
        switch self {
        case .watch(let enable, let pace):
            line.add("enable", enable)
            if let pace { line.add("pace", pace.rawValue) }
        case .record(let hand, let label, let save):
            if let hand { line.add("hand", hand.rawValue) }
            if let label { line.add("label", label) }
            line.add("save", save)
        case .pro(let action):
            switch action {
            case .status:
                line.add("action", "status")
            case .grant(let note, let expires):
                line.add("action", "grant")
                if let note { line.add("note", note) }
                if let expires { line.add("expires", expires.formatted(.iso8601)) }
            case .revoke:
                line.add("action", "revoke")
            case .importSigned(let data, let more, let kind):
                line.add("action", "import")
                line.add("data", data)
                line.add("kind", kind.rawValue)
                if more { line.add("more", true) }
            }
        case .list(let limit):
            if let limit { line.add("limit", limit) }
        case .show(let id), .delete(let id):
            line.add("id", Int(id))
        case .label(let id, let change):
            line.add("id", Int(id))
            if let hand = change.hand { line.add("hand", hand.rawValue) }
            if let label = change.label { line.add("label", label) }
            if let athlete = change.athlete { line.add("athlete", athlete) }
            if let grip = change.grip { line.add("grip", grip) }
            if let edge = change.edgeMillimetres { line.add("edge_mm", edge) }
            if let weight = change.bodyWeightKilograms { line.add("body_weight_kg", weight) }
            if let notation = change.protocolNotation { line.add("protocol", notation) }
            if let max = change.protocolMaxKilograms { line.add("protocol_max_kg", max) }
        case .read(let id, let from):
            line.add("id", Int(id))
            line.add("from", from)
        case .web(let action):
            switch action {
            case .pair(let role, let name):
                line.add("action", "pair")
                line.add("role", role.rawValue)
                if let name { line.add("name", name) }
            case .token(let role, let name):
                line.add("action", "token")
                line.add("role", role.rawValue)
                line.add("name", name)
            case .tokens:
                line.add("action", "tokens")
            case .revoke(let name):
                line.add("action", "revoke")
                line.add("name", name)
            }
        case .status, .stop, .tare, .stats, .history, .plan:
            break
        }
        return line.line
    }
}
