import GripProtocol
import Logging
import NIOCore
import NIOPosix
import Synchronization

/// One WATCH connection to griptrackd at one pace, shared by every event stream of that pace (docs/web.md, "How it
/// is built"): opened when the first stream joins, closed when the last one leaves, and each daemon line made into
/// one Server-Sent Events frame that every stream is sent.
///
/// The connection is read on its event loop (``WatchLinkHandler``), which hands each frame to the streams and never
/// waits for one: a stream whose writer is parked is resumed with it, a busy one has it queued, up to its budget
/// (``WebSettings/eventBacklogLines`` frames, queued and being written); a stream further behind is dropped, its
/// browser's connection closed (its page reconnects). Each stream's writer (``EventStreamWriter``) writes on its
/// browser's event loop, which is the shared connection's own for the browser that opened it. The decisions are
/// ``EventFanout``'s; this class does the I/O.
final class SharedWatch: Sendable {
    /// Who waits for a stream's next delivery: a request waiting for the link to open, or a parked stream writer.
    enum Waiter: Sendable {
        case task(CheckedContinuation<EventDelivery, Never>)
        case writer(EventStreamWriter)

        func resume(with delivery: EventDelivery) {
            switch self {
            case .task(let continuation): continuation.resume(returning: delivery)
            case .writer(let writer): writer.resume(with: delivery)
            }
        }
    }

    typealias Fanout = EventFanout<any Channel, Waiter, any Channel>

    let pace: WatchPace
    let socketPath: String
    /// How often every stream gets a comment frame while the link is open (``WebSettings/eventHeartbeat``).
    let heartbeatInterval: TimeAmount
    private let logger: Logger
    private let fanout: Mutex<Fanout>

    /// Creates the shared WATCH of one pace; nothing connects until a stream joins.
    /// - Parameters:
    ///   - pace: the WATCH pace every stream of it gets.
    ///   - socketPath: the daemon's socket.
    ///   - budget: frames one stream may have waiting (``WebSettings/eventBacklogLines``).
    ///   - heartbeat: how often every stream gets a comment frame (``WebSettings/eventHeartbeat``).
    ///   - logger: the web app's logger.
    init(pace: WatchPace, socketPath: String, budget: Int, heartbeat: TimeAmount, logger: Logger) {
        self.pace = pace
        self.socketPath = socketPath
        self.heartbeatInterval = heartbeat
        self.logger = logger
        fanout = Mutex(Fanout(budget: budget))
    }

    /// Subscribes an event stream whose browser is on `peer`, once the daemon connection is open.
    /// - Returns: the stream's id, for ``next(_:)`` and ``leave(_:)``.
    /// - Throws: `WebError.daemonUnavailable` when the daemon cannot be reached.
    func subscribe(peer: any Channel) async throws -> Int {
        let (id, action) = fanout.withLock { $0.join(peer: peer) }
        // A browser whose connection closes leaves, also before its stream's writer has started.
        peer.closeFuture.whenComplete { [self] _ in leave(id) }
        switch action {
        case .joined: return id
        case .connect(let generation): connect(generation, on: peer.eventLoop)
        case .wait: break
        }
        let delivery = await withCheckedContinuation { (continuation: CheckedContinuation<EventDelivery, Never>) in
            if let now = fanout.withLock({ $0.awaitLink(id, waiter: .task(continuation)) }) {
                continuation.resume(returning: now)
            }
        }
        guard case .linked = delivery else { throw WebError.daemonUnavailable(path: socketPath) }
        return id
    }

    /// Writes stream `id`'s frames on `channel`, the browser's connection, whose response head and first body part
    /// are written, and returns once the stream is over (the daemon closed, the stream fell behind, left, or its task
    /// was cancelled); the response's end is the caller's to write then.
    func deliver(_ id: Int, to channel: any Channel) async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                let writer = EventStreamWriter(id: id, channel: channel, watch: self, done: done)
                channel.eventLoop.execute { writer.start() }
            }
        } onCancel: {
            leave(id)
        }
    }

    /// Takes what `writer`'s stream has pending, or parks the writer until there is some.
    /// - Returns: what to write or do at once, or nil: parked.
    func park(_ writer: EventStreamWriter) -> EventDelivery? {
        fanout.withLock { $0.park(writer.id, waiter: .writer(writer)) }
    }

    /// Ends stream `id` (nothing if it already ended); the last one to leave closes the daemon connection.
    func leave(_ id: Int) {
        apply(fanout.withLock { $0.leave(id) })
    }

    /// Closes the daemon connection: the web app stops, and every stream ends.
    func shutDown() {
        apply(fanout.withLock { $0.shutDown() })
    }

    // MARK: - The daemon connection (on its event loop)

    /// Opens the connection of `generation` on `eventLoop`: the first browser's, so that its frames are written
    /// without a hop to another thread.
    private func connect(_ generation: Int, on eventLoop: any EventLoop) {
        let request = DaemonRequest.watch(enable: true, pace: pace).line
        (ClientBootstrap(validatingGroup: eventLoop) ?? ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton))
            .channelInitializer { [self] channel in
                channel.eventLoop.makeCompletedFuture {
                    let lines = ByteToMessageHandler(LineSplitter(limit: DaemonLink.lineLimit))
                    try channel.pipeline.syncOperations.addHandler(lines)
                    try channel.pipeline.syncOperations.addHandler(
                        WatchLinkHandler(watch: self, generation: generation, request: request))
                }
            }
            .connect(unixDomainSocketPath: socketPath)
            .whenFailure { [self] _ in
                apply(fanout.withLock { $0.connectFailed(generation: generation) })
            }
    }

    /// The connection of `generation` is up; its WATCH request is on its way.
    func connected(generation: Int, connection: any Channel) {
        apply(fanout.withLock { $0.connected(generation: generation, connection: connection) })
    }

    /// One line from the connection of `generation`, made into one frame for every stream: `event:` the line's
    /// class, `data:` the line as the daemon sent it.
    func receive(_ line: ByteBuffer, generation: Int, allocator: ByteBufferAllocator) {
        guard let lineClass = DaemonLink.lineClass(line) else { return }
        var frame = allocator.buffer(capacity: line.readableBytes + lineClass.utf8.count + 16)
        frame.writeStaticString("event: ")
        frame.writeString(lineClass)
        frame.writeStaticString("\ndata: ")
        frame.writeImmutableBuffer(line)
        frame.writeStaticString("\n\n")
        // The greeting and the WATCH reply start every stream, also one that joins later.
        let retained = lineClass == "VERSION" || lineClass == "WATCH"
        apply(fanout.withLock { $0.receive(frame, retained: retained, generation: generation) })
    }

    /// A Server-Sent Events comment for every stream of `generation` (``WebSettings/eventHeartbeat``); browsers
    /// ignore it, and a stream whose browser has gone fails its write and leaves.
    func heartbeat(generation: Int, allocator: ByteBufferAllocator) {
        var frame = allocator.buffer(capacity: 4)
        frame.writeStaticString(":\n\n")
        apply(fanout.withLock { $0.receive(frame, retained: false, generation: generation) })
    }

    /// The connection of `generation` closed (the daemon stopped, or the last stream left).
    func linkClosed(generation: Int) {
        apply(fanout.withLock { $0.linkClosed(generation: generation) })
    }

    /// Carries out a decision, outside the lock.
    private func apply(_ effects: Fanout.Effects) {
        for (waiter, delivery) in effects.resume { waiter.resume(with: delivery) }
        for peer in effects.drop {
            logger.notice("Web browser too far behind the live stream; disconnected", metadata: ["web.pace": "\(pace)"])
            peer.close(promise: nil)
        }
        effects.close?.close(promise: nil)
    }
}
