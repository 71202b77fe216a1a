import Hummingbird
import HummingbirdCore
import Logging
import NIOCore

/// The bounds every HTTP door of griptrack keeps (the web app in griptrackd, griptrack-hub): how many connections
/// it holds at once, how long a connection may sit without a request or in the middle of one, and how large a
/// body may be (docs/web.md and docs/account.md, "Limits").
///
/// Hummingbird's connection-state handler closes a connection that has read nothing for ``idleTimeout`` while no
/// response is being written: an idle keep-alive connection, a request head or body that stops arriving, and a
/// TLS handshake that never completes all end there; a response in progress (an event stream) never does. Past
/// ``maxConnections`` the server stops accepting, so further connections wait in the kernel's listen backlog
/// (and are refused by the kernel past it) instead of costing the process a descriptor each.
package struct DoorLimits: Sendable, Hashable {
    /// The most connections served at once.
    package var maxConnections: Int
    /// How long a connection may go without reading anything while no response is being written.
    package var idleTimeout: Duration
    /// The largest request body, in bytes; a larger `Content-Length` is refused before the body is read.
    package var bodyLimit: Int

    /// - Parameters:
    ///   - maxConnections: The most connections served at once.
    ///   - idleTimeout: How long a connection may go without reading while no response is being written.
    ///   - bodyLimit: The largest request body, in bytes.
    package init(maxConnections: Int, idleTimeout: Duration, bodyLimit: Int) {
        self.maxConnections = maxConnections
        self.idleTimeout = idleTimeout
        self.bodyLimit = bodyLimit
    }

    /// The router's options every door uses: `HEAD` answered for every `GET` route.
    package static let routerOptions: RouterOptions = [.autoGenerateHeadEndpoints]

    /// HTTP/1.1 with the idle timeout.
    package var http1: HTTP1Channel.Configuration {
        HTTP1Channel.Configuration(idleTimeout: TimeAmount(idleTimeout))
    }

    /// Hummingbird's application configuration for `address`, with the connection cap.
    package func applicationConfiguration(
        address: BindAddress, serverName: String, logger: Logger
    ) -> ApplicationConfiguration {
        ApplicationConfiguration(
            address: address, serverName: serverName,
            availableConnectionsDelegate: .maximum(maxConnections, logger: logger))
    }
}

/// Refuses a request whose declared `Content-Length` is over the door's body limit with 413 before any of the body
/// is read, answers `OPTIONS` with the methods griptrack serves (no cross-origin access is granted: no
/// `Access-Control-Allow-Origin`), and refuses `HEAD` of a stream's path (whose `GET` never ends) with 405; other
/// `HEAD`s are the router's (``routerOptions``: the `GET` without its body).
package struct DoorMiddleware<Context: RequestContext>: RouterMiddleware {
    let limits: DoorLimits
    /// Paths whose `GET` answers with a stream that does not end (`HEAD` there is refused).
    let streamPaths: Set<String>
    /// How the door words a refusal (the web app answers JSON, the hub plain text).
    let refusal: @Sendable (HTTPResponse.Status, String) -> Response

    /// - Parameters:
    ///   - limits: The door's bounds.
    ///   - streamPaths: Paths whose `GET` never ends.
    ///   - refusal: The door's refusal for a status and message; plain text unless given.
    package init(
        limits: DoorLimits, streamPaths: Set<String> = [],
        refusal: @escaping @Sendable (HTTPResponse.Status, String) -> Response = { DoorMiddleware.text($0, $1) }
    ) {
        self.limits = limits
        self.streamPaths = streamPaths
        self.refusal = refusal
    }

    package func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        if let declared = request.headers[.contentLength] {
            guard let length = Int(declared), length >= 0 else {
                return refusal(.badRequest, "Content-Length must be a whole number of bytes")
            }
            if length > limits.bodyLimit {
                return refusal(.contentTooLarge, "The request body is larger than \(limits.bodyLimit) bytes; send a smaller one.")
            }
        }
        switch request.method {
        case .options:
            var response = Self.text(.noContent, nil)
            response.headers[.allow] = "GET, HEAD, POST, DELETE, OPTIONS"
            return response
        case .head where streamPaths.contains(request.uri.path):
            var response = refusal(.methodNotAllowed, "This is an event stream: GET it.")
            response.headers[.allow] = "GET"
            return response
        default:
            return try await next(request, context)
        }
    }

    /// A plain-text answer (the hub's and the web app's refusals read alike).
    package static func text(_ status: HTTPResponse.Status, _ message: String?) -> Response {
        Response(
            status: status,
            headers: [.contentType: "text/plain; charset=utf-8", .cacheControl: "no-store"],
            body: message.map { ResponseBody(byteBuffer: ByteBuffer(string: $0 + "\n")) } ?? ResponseBody())
    }
}
