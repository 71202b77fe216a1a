import Foundation
import GripDaemon
import GripHTTP
import GripProtocol
import GripStore
import Hummingbird
import NIOCore

extension WebServer {
    /// Every route the app has; anything else is a 404 (no path from the URL ever reaches the file system).
    func addRoutes(to router: Router<WebContext>) {
        router.get("/") { _, _ in WebAssets.response(named: "index.html")! }
        router.get("/history") { _, _ in WebAssets.response(named: "history.html")! }
        router.get("/assets/:name") { _, context throws(WebError) -> Response in
            guard let name = context.parameters.get("name"), let response = WebAssets.response(named: name) else {
                throw .notFound("This asset")
            }
            return response
        }
        router.get("/pair") { request, context in try self.pair(request, context) }
        router.get("/api/session") { request, _ in try self.session(request) }
        router.get("/api/status") { request, _ in
            _ = try self.authenticator.require(.watch, request)
            return try await self.forward(.status)
        }
        router.get("/api/plan") { request, _ in
            _ = try self.authenticator.require(.watch, request)
            return try await self.forward(.plan)
        }
        router.get("/api/recordings") { request, _ in
            _ = try self.authenticator.require(.watch, request)
            var limit: Int?
            if let text = request.uri.queryParameters["limit"].map(String.init) {
                guard let number = Int(text), number >= 1 else { throw WebError.badRequest("limit must be a whole number ≥ 1, got \(text)") }
                limit = number
            }
            return try await self.recordings(limit: limit ?? Self.listPageSize, filter: try Self.recordingFilter(request))
        }
        router.get("/api/recordings/:id") { request, context in
            _ = try self.authenticator.require(.watch, request)
            let id = try Self.recordingID(context)
            return try await self.forward(.show(id: id))
        }
        router.get("/api/recordings/:id/samples") { request, context in
            _ = try self.authenticator.require(.watch, request)
            return try await self.samples(of: try Self.recordingID(context))
        }
        router.get("/api/protocols") { request, _ in
            _ = try self.authenticator.require(.watch, request)
            return try Self.document(ProtocolListJSON(configured: self.settings.protocols.map { ($0.name, $0.notation) }))
        }
        router.get("/api/protocols/plan") { request, _ in
            _ = try self.authenticator.require(.watch, request)
            return try Self.protocolPlan(request)
        }
        router.get("/api/events") { request, context in try await self.events(request, context) }
        if let metrics {
            // A scraper authenticates like any script: a bearer token of the watch role (or anonymous watching).
            router.get("/metrics") { request, _ in
                _ = try self.authenticator.require(.watch, request)
                return Response(
                    status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                    body: ResponseBody(byteBuffer: ByteBuffer(string: metrics())))
            }
        }
        router.post("/api/record") { request, _ in
            _ = try self.authenticator.require(.record, request)
            let body = try await Self.body(RecordBody.self, of: request) ?? RecordBody()
            let text = { (value: String?) in value.flatMap { $0.isEmpty ? nil : $0 } }
            let run = try Self.protocolRun(text(body.protocol), maxKg: body.protocolMaxKg)
            switch DaemonRequest.record(hand: text(body.hand), label: text(body.label), save: body.save) {
            case .success(let record): return try await self.record(record, storing: run)
            case .failure(let problem): throw WebError.badRequest(problem.message)
            }
        }
        router.post("/api/stop") { request, _ in
            _ = try self.authenticator.require(.record, request)
            _ = try await Self.body(EmptyBody.self, of: request)
            return try await self.command(.stop)
        }
        router.post("/api/tare") { request, _ in
            _ = try self.authenticator.require(.record, request)
            _ = try await Self.body(EmptyBody.self, of: request)
            return try await self.command(.tare)
        }
    }

    // MARK: - Pairing and session

    /// `GET /pair?code=…`: a pairing code becomes a long-lived session cookie, then the live page.
    func pair(_ request: Request, _ context: WebContext) throws(WebError) -> Response {
        let client = ClientKey(peer: context.remoteAddress)
        guard limiter.hasBudget(client) else { throw .tooManyPairingAttempts }
        guard let code = request.uri.queryParameters["code"].map(String.init), !code.isEmpty, code.count <= 64 else {
            _ = limiter.admit(client)
            throw .pairing("This pairing URL has no code. Open the URL `griptrack web pair` prints.")
        }
        switch access.redeem(code: code) {
        case .failure(let problem):
            _ = limiter.admit(client)
            if let unlogged = pairingRefusals.admit("\(client)") {
                logger.notice("Web pairing refused", metadata: ["web.peer": "\(client)", "refusals.unlogged": "\(unlogged)"])
            }
            throw .pairing(problem.description)
        case .success(let (secret, _)):
            var response = Response(status: .seeOther, headers: [.location: "/", .cacheControl: "no-store"])
            // HttpOnly: scripts never see it. SameSite=Strict: no other site's page can make the browser send it.
            // Max-Age 400 days, the longest browsers keep a cookie; revoking it is what ends it. Secure over TLS: the
            // browser then never sends it in clear text.
            let secure = settings.tls == nil ? "" : "; Secure"
            response.headers[values: .setCookie].append(
                "\(WebAuthenticator.cookieName)=\(secret); Path=/; Max-Age=34560000; HttpOnly; SameSite=Strict\(secure)")
            return response
        }
    }

    /// `GET /api/session`: who this browser is, and the CSRF token its page sends with state changes.
    func session(_ request: Request) throws(WebError) -> Response {
        let caller = try authenticator.caller(request)
        var object: [String: Any] = ["role": caller.role.rawValue, "anonymous": caller.name == nil]
        if let name = caller.name { object["name"] = name }
        if let csrf = caller.csrfToken { object["csrf"] = csrf }
        return WebError.jsonResponse(status: .ok, object: object)
    }

    // MARK: - Forwarding

    /// A query on a connection of its own; the daemon's reply line is the body.
    func forward(_ request: DaemonRequest) async throws -> Response {
        try Self.reply(try await DaemonLink.ask(path: settings.socketPath, request))
    }

    /// RECORD, STOP and TARE go through the one long-lived connection (``ControlLink``).
    func command(_ request: DaemonRequest) async throws -> Response {
        try Self.reply(try await control.ask(request))
    }

    /// A daemon line as a response: 200 with the line, or the error its ERROR `code` maps to.
    static func reply(_ line: ByteBuffer) throws -> Response {
        if DaemonLink.lineClass(line) == "ERROR" {
            guard case .error(let problem) = DaemonMessage.parse(String(buffer: line)) else {
                throw WebError.daemon(status: WebError.status(forDaemonCode: nil), message: "griptrackd refused the request")
            }
            throw WebError.daemon(status: WebError.status(forDaemonCode: problem.code?.rawValue), message: problem.message)
        }
        return Response(
            status: .ok, headers: [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: line))
    }

    /// `GET /api/recordings/{id}/samples`: every READ page of a recording, as one object `{"id","t","kg"}` whose
    /// numbers are the daemon's text, unchanged (float32-exact forces).
    func samples(of id: Int64) async throws -> Response {
        let body = try await DaemonLink.slots.withSlot { try await self.samplesBody(of: id) }
        return Response(
            status: .ok, headers: [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
    }

    private func samplesBody(of id: Int64) async throws -> String {
        let channel = try await DaemonLink.connect(path: settings.socketPath)
        return try await channel.executeThenClose { inbound, outbound in
            var lines = inbound.makeAsyncIterator()
            var times: [Substring] = []
            var forces: [Substring] = []
            var from: Int? = 0
            while let page = from {
                try await outbound.write(ByteBuffer(string: DaemonRequest.read(id: id, from: page).line))
                var reply: ByteBuffer?
                while reply == nil, let line = try await lines.next() {
                    let lineClass = DaemonLink.lineClass(line)
                    if lineClass == "READ" || lineClass == "ERROR" { reply = line }
                }
                guard let reply else { throw WebError.daemonClosed }
                if DaemonLink.lineClass(reply) == "ERROR" { _ = try Self.reply(reply) }
                let text = String(buffer: reply)
                if let t = Self.rawArray("t", in: text), !t.isEmpty { times.append(t) }
                if let kg = Self.rawArray("kg", in: text), !kg.isEmpty { forces.append(kg) }
                from = Self.rawInteger("next", in: text)
            }
            return #"{"id":\#(id),"t":[\#(times.joined(separator: ","))],"kg":[\#(forces.joined(separator: ","))]}"#
        }
    }

    /// An API document written by ``JSONOutput``, as the CLI's `--json` writes its own.
    static func document(_ value: some Encodable) throws -> Response {
        Response(
            status: .ok, headers: [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: try JSONOutput.document(value))))
    }

    // MARK: - Helpers

    static func recordingID(_ context: WebContext) throws(WebError) -> Int64 {
        guard let text = context.parameters.get("id"), let id = Int64(text), id > 0 else {
            throw .badRequest("a recording id is a positive whole number, e.g. /api/recordings/12")
        }
        return id
    }

    /// The body decoded as `Body` (``WebRequestBody``), at most ``WebSettings/bodyLimit`` bytes; `nil` for an empty
    /// body.
    static func body<Body: Decodable>(_ type: Body.Type, of request: Request) async throws -> Body? {
        var request = request
        let buffer: ByteBuffer
        do {
            buffer = try await request.collectBody(upTo: WebSettings.bodyLimit)
        } catch is NIOTooManyBytesError {
            throw WebError.bodyTooLarge(limit: WebSettings.bodyLimit)
        }
        if buffer.readableBytes == 0 { return nil }
        switch WebRequestBody.decode(Body.self, from: Array(buffer.readableBytesView)) {
        case .success(let body): return body
        case .failure(let problem): throw WebError.badRequest(problem.message)
        }
    }

    /// The text inside `"key":[…]` of a daemon line (its numbers as the daemon wrote them).
    static func rawArray(_ key: String, in text: String) -> Substring? {
        guard let start = text.range(of: "\"\(key)\":[") else { return nil }
        guard let end = text[start.upperBound...].firstIndex(of: "]") else { return nil }
        return text[start.upperBound..<end]
    }

    static func rawInteger(_ key: String, in text: String) -> Int? {
        guard let start = text.range(of: "\"\(key)\":") else { return nil }
        return Int(text[start.upperBound...].prefix { $0.isNumber })
    }
}
