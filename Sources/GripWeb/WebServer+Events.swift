import Foundation
import GripDaemon
import GripProtocol
import GripSystem
import HTTPTypes
import Hummingbird
import NIOCore

extension WebServer {
    /// `GET /api/events`: the live stream as Server-Sent Events, one event per protocol line (`event:` the line's
    /// class, `data:` the line as the daemon sent it), from the WATCH connection every stream of this pace shares
    /// (``SharedWatch``).
    ///
    /// At most ``WebSettings/eventBacklogLines`` frames wait for one browser: so neither the daemon nor the other
    /// browsers are ever held up by it, and a browser that falls that far behind (asleep, gone without a FIN) is
    /// disconnected instead of growing the queue. Its page reconnects by itself. A revoked credential ends the stream
    /// within a second (the check runs beside the stream, not per line).
    func events(_ request: Request, _ context: WebContext) async throws -> Response {
        let caller = try authenticator.require(.watch, request)
        // The daemon's WATCH pace (docs/protocol.md): batched (≤ 25 SAMPLES lines a second) suits a display; a
        // program reacting to the force may ask for each notification's samples at once.
        let paceName = request.uri.queryParameters["pace"].map(String.init) ?? "batched"
        guard let pace = WatchPace(rawValue: paceName), let watch = watches[pace] else {
            let paces = WatchPace.allCases.map(\.rawValue).joined(separator: ", ")
            throw WebError.badRequest("pace must be one of \(paces), got \(paceName.quotedForLog(limit: 32))")
        }
        try await context.channel.setOption(
            ChannelOptions.socketOption(.so_sndbuf), value: SocketOptionValue(settings.eventSendBufferBytes)
        ).get()
        // Subscribed before the answer, so a daemon that is not there is a 503, not an empty stream.
        let stream = try await watch.subscribe(peer: context.channel)
        let access = self.access
        let headers: HTTPFields = [
            .contentType: "text/event-stream", .cacheControl: "no-store", HTTPField.Name("X-Accel-Buffering")!: "no",
        ]
        return Response(status: .ok, headers: headers, body: ResponseBody { writer in
            // A revoked credential ends the stream within a second, also while no line flows (a device that is off).
            let revocation = Task {
                guard let hash = caller.secretHash else { return }
                while access.isValid(secretHash: hash) {
                    guard (try? await Task.sleep(for: .seconds(1))) != nil else { return }
                }
                watch.leave(stream)
            }
            defer {
                revocation.cancel()
                watch.leave(stream)
            }
            // The browser's EventSource waits this long before reconnecting. Written through Hummingbird, after the
            // head: the stream's lines are then written on the connection's event loop (EventStreamWriter).
            try await writer.write(ByteBuffer(string: "retry: 2000\n\n"))
            await watch.deliver(stream, to: context.channel)
            try await writer.finish(nil)
        })
    }
}
