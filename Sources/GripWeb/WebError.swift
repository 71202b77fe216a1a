import Foundation
import GripProtocol
import Hummingbird

/// Every error the web app answers with: a status and a JSON body `{"error": "..."}` whose message says what to do
/// (docs/web.md, "Errors").
package enum WebError: HTTPResponseError, CustomStringConvertible, Equatable {
    /// No valid credential (401).
    case unauthenticated
    /// A valid credential whose role is below what the request needs (403).
    case forbidden(needs: String)
    /// A state-changing request with a session cookie but without the matching CSRF header (403).
    case csrf
    /// The pairing code was refused (403).
    case pairing(String)
    /// Too many pairing attempts from one address (429).
    case tooManyPairingAttempts
    /// The request body is larger than the limit (413).
    case bodyTooLarge(limit: Int)
    /// The request body is not the JSON object the endpoint takes (400).
    case badRequest(String)
    /// No such page, asset or API endpoint (404).
    case notFound(String)
    /// The daemon's socket does not answer (503).
    case daemonUnavailable(path: String)
    /// The daemon closed the connection before its reply (502).
    case daemonClosed
    /// Every one of the web app's daemon request slots stayed taken (503 with Retry-After): many requests at once,
    /// not a daemon in trouble.
    case busy
    /// The daemon answered with an ERROR: its text, and the status its `code` maps to.
    case daemon(status: HTTPResponse.Status, message: String)

    package var status: HTTPResponse.Status {
        switch self {
        case .unauthenticated: .unauthorized
        case .forbidden, .csrf, .pairing: .forbidden
        case .tooManyPairingAttempts: .tooManyRequests
        case .bodyTooLarge: .contentTooLarge
        case .badRequest: .badRequest
        case .notFound: .notFound
        case .daemonUnavailable: .serviceUnavailable
        case .daemonClosed: .badGateway
        case .busy: .serviceUnavailable
        case .daemon(let status, _): status
        }
    }

    package var description: String {
        switch self {
        case .unauthenticated:
            "Not signed in: pair this browser (`griptrack web pair` on the board's computer, then open the URL it prints) "
                + "or send a bearer token (`griptrack web token create`)."
        case .forbidden(let needs):
            "This credential may not do that: it needs the \(needs) role. Pair again with `griptrack web pair --role \(needs)`."
        case .csrf:
            "Missing or wrong X-CSRF-Token header: reload the page (scripts use a bearer token instead of the cookie)."
        case .pairing(let text): text
        case .tooManyPairingAttempts:
            "Too many refused pairing codes from this address: wait a minute, then open the URL `griptrack web pair` printed."
        case .bodyTooLarge(let limit): "The request body is larger than \(limit) bytes; send a smaller JSON object."
        case .badRequest(let text): text
        case .notFound(let what): "\(what) does not exist here; the live view is at /, the history at /history."
        case .daemonUnavailable(let path):
            "griptrackd does not answer on \(path); check `systemctl status griptrack` and reload the page."
        case .daemonClosed: "griptrackd closed the connection before answering; try again."
        case .busy:
            "The web app is answering many requests at once; this one waited and was not sent. Retry in a second."
        case .daemon(_, let message): message
        }
    }

    package func response(from request: Request, context: some RequestContext) throws -> Response {
        var response = Self.jsonResponse(status: status, object: ["error": description])
        switch self {
        case .busy: response.headers[.retryAfter] = "1"
        case .tooManyPairingAttempts: response.headers[.retryAfter] = "60"
        default: break
        }
        return response
    }

    /// A JSON response from a dictionary.
    static func jsonResponse(status: HTTPResponse.Status, object: [String: Any]) -> Response {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
        return Response(
            status: status, headers: [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// The status for a daemon ERROR's `code` (docs/protocol.md, ERROR).
    static func status(forDaemonCode code: String?) -> HTTPResponse.Status {
        switch code {
        case "not_found": .notFound
        case "pro_required": HTTPResponse.Status(code: 402, reasonPhrase: "Payment Required")
        case "invalid": .badRequest
        case "busy": .conflict
        case "not_authorized": .forbidden
        case nil: .conflict
        default: .internalServerError
        }
    }
}
