/// Why a request was refused: the ERROR reply's message and, for the requests of 1.2 on, its machine-readable code.
package struct RequestProblem: Error, Equatable, Sendable, Decodable, ProtocolLine {
    package static let lineClass = "ERROR"

    package var code: ErrorCode?
    package var message: String

    package init(code: ErrorCode? = nil, message: String) {
        self.code = code
        self.message = message
    }

    /// The `code` of an ERROR reply (protocol 1.2).
    package enum ErrorCode: String, Sendable {
        /// The peer may not make this request.
        case notAuthorized = "not_authorized"
        /// The daemon's plan does not include this (Pro, or a recording the free plan hides).
        case proRequired = "pro_required"
        /// No such recording.
        case notFound = "not_found"
        /// A field is missing or malformed.
        case invalid = "invalid"
        /// The recording is being recorded right now, or too many queries wait for their replies.
        case busy = "busy"
        /// The database failed.
        case store = "store"
        /// PRO import: the signed data did not verify.
        case rejected = "rejected"
    }

    /// What the daemon answers to a line that is not a JSON object with a "class" string.
    package static let malformed = RequestProblem(
        message: "malformed request: expected one JSON object per line with a \"class\" string, "
            + "e.g. {\"class\":\"WATCH\",\"enable\":true}")

    /// Reads an ERROR line; a code this build does not know (a newer daemon's) reads as none.
    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        message = try container.decode(String.self, forKey: .message)
        code = (try? container.decodeIfPresent(String.self, forKey: .code)).flatMap { $0.flatMap(ErrorCode.init(rawValue:)) }
    }

    private enum CodingKeys: String, CodingKey {
        case message, code
    }

    package func write(to fields: inout JSONLine) {
        fields.add("message", message)
        fields.add("code", code?.rawValue)
    }
}
