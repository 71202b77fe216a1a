import Foundation
import GripDaemon
import GripProtocol
import HTTPTypes
import Hummingbird
import NIOCore
import Synchronization

extension WebServer {
    /// `GET /api/events`: the live stream as Server-Sent Events, one event per protocol line (`event:` the line's
    /// class, `data:` the line as the daemon sent it), over a WATCH connection of this browser's own.
    ///
    /// A task reads the daemon's lines as they come and queues them for the browser, at most
    /// ``WebSettings/eventBacklogLines``: so the daemon is never held up by this browser, and a browser that falls
    /// that far behind (asleep, gone without a FIN) is disconnected instead of growing the queue. Its page
    /// reconnects by itself. A revoked credential ends the stream within a second.
    func events(_ request: Request, _ context: WebContext) async throws -> Response {
        let caller = try authenticator.require(.watch, request)
        // The daemon's WATCH pace (docs/protocol.md): batched (≤ 25 SAMPLES lines a second) suits a display; a
        // program reacting to the force may ask for each notification's samples at once.
        let paceName = request.uri.queryParameters["pace"].map(String.init) ?? "batched"
        guard let pace = WatchPace(rawValue: paceName) else {
            throw WebError.badRequest("pace must be batched or immediate, got \(paceName)")
        }
        try await context.channel.setOption(
            ChannelOptions.socketOption(.so_sndbuf), value: SocketOptionValue(settings.eventSendBufferBytes)
        ).get()
        // Connected before the answer, so a daemon that is not there is a 503, not an empty stream.
        let daemon = try await DaemonLink.connect(path: settings.socketPath)
        let access = self.access
        let httpChannel = context.channel
        let logger = self.logger
        let backlog = settings.eventBacklogLines
        let headers: HTTPFields = [
            .contentType: "text/event-stream", .cacheControl: "no-store", HTTPField.Name("X-Accel-Buffering")!: "no",
        ]
        return Response(status: .ok, headers: headers, body: ResponseBody { writer in
            let (events, queue) = AsyncStream<ByteBuffer>.makeStream(
                bufferingPolicy: .bufferingOldest(backlog))
            let reader = Task {
                var overflowed = false
                try? await daemon.executeThenClose { inbound, outbound in
                    try await outbound.write(ByteBuffer(string: DaemonRequest.watch(enable: true, pace: pace).line))
                    for try await line in inbound {
                        if let hash = caller.secretHash, !access.isValid(secretHash: hash) { break }
                        guard let lineClass = DaemonLink.lineClass(line) else { continue }
                        var event = ByteBuffer()
                        event.reserveCapacity(line.readableBytes + lineClass.utf8.count + 16)
                        event.writeString("event: \(lineClass)\ndata: ")
                        event.writeImmutableBuffer(line)
                        event.writeString("\n\n")
                        if case .dropped = queue.yield(event) {
                            overflowed = true
                            break
                        }
                    }
                }
                queue.finish()
                if overflowed {
                    logger.notice("Web browser too far behind the live stream; disconnected")
                    httpChannel.close(promise: nil)
                }
            }
            // Revocation counts at once, also while no line flows (a device that is off).
            let revocation = Task {
                guard let hash = caller.secretHash else { return }
                while access.isValid(secretHash: hash) {
                    guard (try? await Task.sleep(for: .seconds(1))) != nil else { return }
                }
                daemon.channel.close(promise: nil)
            }
            defer {
                reader.cancel()
                revocation.cancel()
            }
            // The browser's EventSource waits this long before reconnecting.
            try await writer.write(ByteBuffer(string: "retry: 2000\n\n"))
            for await event in events {
                try await writer.write(event)
            }
            try await writer.finish(nil)
        })
    }
}
