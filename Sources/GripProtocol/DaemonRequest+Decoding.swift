import Foundation
import GripAnalysis

extension DaemonRequest {
    /// Reads one request line (without its newline) and checks its fields.
    ///
    /// - Parameters:
    ///   - line: The line's bytes, any content.
    ///   - now: Only for PRO grant: an expiry must be later than this.
    /// - Returns: `nil` for a blank line (spaces and tabs only: ignored), else the request or why it was refused,
    ///   in words for the ERROR reply.
    package static func decode(_ line: [UInt8], now: Date) -> Result<DaemonRequest, RequestProblem>? {
        if line.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }) { return nil }
        // A decoder per line: creating one costs about as much as decoding a short line, and requests are rare.
        guard let fields = try? JSONDecoder().decode(Fields.self, from: Data(line)) else {
            return .failure(.malformed)
        }
        return fields.request(now: now)
    }

    /// RECORD from its fields as given (a request line, the web app's form): hand left or right, a label
    /// ``RecordingLabel`` accepts, saved unless `save` is false.
    package static func record(hand: String?, label: String?, save: Bool?) -> Result<DaemonRequest, RequestProblem> {
        var parsedHand: Hand?
        if let hand {
            guard let value = Hand(rawValue: hand) else {
                return .failure(RequestProblem(message: Self.handProblem(hand)))
            }
            parsedHand = value
        }
        if let label, let problem = RecordingLabel.problem(label) {
            return .failure(RequestProblem(message: "label " + problem))
        }
        return .success(.record(hand: parsedHand, label: label, save: save ?? true))
    }

    /// Why `hand` is not a hand.
    static func handProblem(_ hand: String) -> String {
        "hand must be \"left\", \"right\" or \"both\", got \"\(hand)\""
    }

    /// Every field any class uses; unknown fields are ignored (protocol 1.0, global rules).
    private struct Fields: Decodable {
        var `class`: String
        var enable: Bool?
        var pace: String?
        var hand: String?
        var label: String?
        var save: Bool?
        var action: String?
        var note: String?
        var expires: String?
        var id: Int64?
        var from: Int?
        var limit: Int?
        var data: String?
        var more: Bool?
        var kind: String?
        var role: String?
        var name: String?
        // 1.6: LABEL (with hand, label and id)
        var athlete: String?
        var grip: String?
        var edgeMm: Double?
        var bodyWeightKg: Double?
        // 1.8: LABEL's protocol
        var `protocol`: String?
        var protocolMaxKg: Double?

        private enum CodingKeys: String, CodingKey {
            case `class`, enable, pace, hand, label, save, action, note, expires, id, from, limit, data, more, kind, role
            case name, athlete, grip, edgeMm = "edge_mm", bodyWeightKg = "body_weight_kg"
            case `protocol`, protocolMaxKg = "protocol_max_kg"
        }

        func request(now: Date) -> Result<DaemonRequest, RequestProblem> {
            switch `class` {
            case "WATCH":
                guard let pace else { return .success(.watch(enable: enable ?? true, pace: nil)) }
                guard let parsed = WatchPace(rawValue: pace) else {
                    return .failure(RequestProblem(
                        message: "WATCH pace must be \"batched\" (≤ 25 SAMPLES lines a second), \"immediate\" "
                            + "(each notification's samples at once) or \"slow\" (≤ 2 lines a second), got \"\(pace)\""))
                }
                return .success(.watch(enable: enable ?? true, pace: parsed))
            case "STATUS": return .success(.status)
            case "RECORD": return DaemonRequest.record(hand: hand, label: label, save: save)
            case "STOP": return .success(.stop)
            case "TARE": return .success(.tare)
            case "PRO": return pro(now: now).map { .pro($0) }
            case "LIST":
                if let limit, limit < 1 {
                    return .failure(RequestProblem(code: .invalid, message: "limit must be at least 1, got \(limit)"))
                }
                return .success(.list(limit: limit))
            case "SHOW": return recordingID().map { .show(id: $0) }
            case "READ":
                if let from, from < 0 {
                    return .failure(RequestProblem(
                        code: .invalid, message: "from must be 0 or a READ reply's next, got \(from)"))
                }
                return recordingID().map { .read(id: $0, from: from ?? 0) }
            case "STATS": return .success(.stats)
            case "HISTORY": return .success(.history)
            case "PLAN": return .success(.plan)
            case "DELETE": return recordingID().map { .delete(id: $0) }
            case "LABEL": return recordingID().flatMap { id in description().map { .label(id: id, $0) } }
            case "WEB": return web().map { .web($0) }
            default:
                return .failure(RequestProblem(
                    message: "unknown request class \"\(`class`)\"; expected WATCH, STATUS, RECORD, STOP, TARE, PRO, "
                        + "LIST, SHOW, READ, STATS, HISTORY, PLAN, DELETE, LABEL or WEB"))
            }
        }

        private func pro(now: Date) -> Result<ProAction, RequestProblem> {
            switch action ?? "status" {
            case "status":
                return .success(.status)
            case "revoke":
                return .success(.revoke)
            case "grant":
                guard let expires else { return .success(.grant(note: note, expires: nil)) }
                guard let date = ExpiryText.date(from: expires) else {
                    return .failure(RequestProblem(
                        message: "expires must be a date (2027-03-01) or an ISO 8601 time, got \"\(expires)\""))
                }
                guard date > now else {
                    return .failure(RequestProblem(message: "expires \(expires) is in the past; give a later date"))
                }
                return .success(.grant(note: note, expires: date))
            case "import":
                guard let kind = SignedDataImportKind(rawValue: kind ?? "auto") else {
                    return .failure(RequestProblem(
                        code: .invalid,
                        message: "kind must be auto, transaction, renewal-info or notification, got \"\(kind ?? "")\""))
                }
                return .success(.importSigned(data: data ?? "", more: more ?? false, kind: kind))
            case let other:
                return .failure(RequestProblem(
                    message: "unknown PRO action \"\(other)\"; expected status, grant, revoke or import"))
            }
        }

        /// LABEL's change, checked as `griptrack label` checks it (``RecordingDescription/problem``).
        private func description() -> Result<RecordingDescription, RequestProblem> {
            var change = RecordingDescription(
                label: label, athlete: athlete, grip: grip, edgeMillimetres: edgeMm, bodyWeightKilograms: bodyWeightKg,
                protocolNotation: `protocol`, protocolMaxKilograms: protocolMaxKg)
            if let hand {
                guard let value = Hand(rawValue: hand) else {
                    return .failure(RequestProblem(code: .invalid, message: DaemonRequest.handProblem(hand)))
                }
                change.hand = value
            }
            if change.isEmpty {
                return .failure(RequestProblem(
                    code: .invalid,
                    message: "LABEL needs at least one of \"hand\", \"label\", \"athlete\", \"grip\", \"edge_mm\", "
                        + "\"body_weight_kg\", \"protocol\", \"protocol_max_kg\""))
            }
            if let problem = change.problem { return .failure(RequestProblem(code: .invalid, message: problem)) }
            return .success(change)
        }

        /// The recording id of SHOW, READ, DELETE and LABEL.
        private func recordingID() -> Result<Int64, RequestProblem> {
            guard let id, id > 0 else {
                return .failure(RequestProblem(
                    code: .invalid, message: "\(`class`) needs \"id\": a recording id (a positive integer)"))
            }
            return .success(id)
        }

        private func web() -> Result<WebAction, RequestProblem> {
            switch action ?? "" {
            case "pair":
                return webRole(default: .watch).flatMap { role in
                    guard let name else { return .success(.pair(role: role, name: nil)) }
                    return Self.webName(name).map { .pair(role: role, name: $0) }
                }
            case "token":
                return webRole(default: nil).flatMap { role in
                    guard let name else {
                        return .failure(RequestProblem(code: .invalid, message: "WEB token needs \"name\", e.g. \"grafana\""))
                    }
                    return Self.webName(name).map { .token(role: role, name: $0) }
                }
            case "tokens":
                return .success(.tokens)
            case "revoke":
                guard let name, !name.isEmpty else {
                    return .failure(RequestProblem(
                        code: .invalid,
                        message: "WEB revoke needs \"name\": the credential's name (`griptrack web tokens` lists them)"))
                }
                return .success(.revoke(name: name))
            case let other:
                return .failure(RequestProblem(
                    code: .invalid, message: "WEB action must be pair, token, tokens or revoke, got \"\(other)\""))
            }
        }

        private func webRole(default fallback: WebRole?) -> Result<WebRole, RequestProblem> {
            guard let role else {
                if let fallback { return .success(fallback) }
                return .failure(RequestProblem(code: .invalid, message: "WEB token needs \"role\": watch, record or admin"))
            }
            guard let parsed = WebRole(rawValue: role) else {
                return .failure(RequestProblem(code: .invalid, message: "role must be watch, record or admin, got \"\(role)\""))
            }
            return .success(parsed)
        }

        /// 1–64 characters, no control characters, no spaces at either end.
        private static func webName(_ text: String) -> Result<String, RequestProblem> {
            guard (1...64).contains(text.count), text.trimmingCharacters(in: .whitespaces) == text,
                !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
            else {
                return .failure(RequestProblem(
                    code: .invalid,
                    message: "name must be 1 to 64 characters without control characters or spaces at either end, "
                        + "got \"\(text)\""))
            }
            return .success(text)
        }
    }
}
