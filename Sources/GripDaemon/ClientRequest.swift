import Foundation

/// One request line a client sent (protocol 1.2, docs/protocol.md): every field but "class" is optional; unknown
/// fields are ignored. Which fields a class uses, and their values, are checked later (``RecorderRequestParser``).
struct ClientRequest: Decodable, Equatable {
    var `class`: String
    var enable: Bool?
    // 1.3: WATCH "pace"
    var pace: String?
    // RECORD
    var hand: String?
    var label: String?
    var save: Bool?
    // PRO
    var action: String?
    var note: String?
    var expires: String?
    // 1.2: LIST, SHOW, READ, DELETE, PRO import
    var id: Int64?
    var from: Int?
    var limit: Int?
    var data: String?
    var more: Bool?
    var kind: String?
    // 1.5: WEB
    var role: String?
    var name: String?
    // 1.6: LABEL (with hand, label and id)
    var athlete: String?
    var grip: String?
    var edgeMm: Double?
    var bodyWeightKg: Double?

    private enum CodingKeys: String, CodingKey {
        case `class`, enable, pace, hand, label, save, action, note, expires, id, from, limit, data, more, kind, role, name
        case athlete, grip, edgeMm = "edge_mm", bodyWeightKg = "body_weight_kg"
    }

    /// What the daemon answers to a line that is not a JSON object with a "class" string.
    static let malformed = RequestProblem(
        message: "malformed request: expected one JSON object per line with a \"class\" string, "
            + "e.g. {\"class\":\"WATCH\",\"enable\":true}")

    /// Decodes one line (without its newline).
    ///
    /// - Parameters:
    ///   - line: The line's bytes, any content.
    ///   - decoder: The socket thread's decoder (reused: creating one per line costs more than decoding).
    /// - Returns: `nil` for a blank line (spaces and tabs only: ignored), else the request or ``malformed``.
    static func decode(_ line: [UInt8], with decoder: JSONDecoder) -> Result<ClientRequest, RequestProblem>? {
        if line.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }) { return nil }
        guard let request = try? decoder.decode(ClientRequest.self, from: Data(line)) else { return .failure(malformed) }
        return .success(request)
    }
}
