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
/// browser's connection closed (its page reconnects). The decisions are ``EventFanout``'s; this class does the I/O.
final class SharedWatch: Sendable {
    typealias Waiter = CheckedContinuation<EventDelivery, Never>
    typealias Fanout = EventFanout<any Channel, Waiter, any Channel>

    let pace: WatchPace
    let socketPath: String
    private let logger: Logger
    private let fanout: Mutex<Fanout>

    /// Creates the shared WATCH of one pace; nothing connects until a stream joins.
    /// - Parameters:
    ///   - pace: the WATCH pace every stream of it gets.
    ///   - socketPath: the daemon's socket.
    ///   - budget: frames one stream may have waiting (``WebSettings/eventBacklogLines``).
    ///   - logger: the web app's logger.
    init(pace: WatchPace, socketPath: String, budget: Int, logger: Logger) {
        self.pace = pace
        self.socketPath = socketPath
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
        case .connect(let generation): connect(generation)
        case .wait: break
        }
        let delivery = await withCheckedContinuation { (waiter: Waiter) in
            if let now = fanout.withLock({ $0.awaitLink(id, waiter: waiter) }) { waiter.resume(returning: now) }
        }
        guard case .linked = delivery else { throw WebError.daemonUnavailable(path: socketPath) }
        return id
    }

    /// The frames stream `id` writes next, waiting while there are none; nil once the stream is over. Call it again
    /// only once the frames it returned are written: until then they count against the stream's budget.
    func next(_ id: Int) async -> [ByteBuffer]? {
        switch fanout.withLock({ $0.take(id) }) {
        case .frames(let frames): return frames
        case .ended: return nil
        case .empty: break
        }
        let delivery = await withTaskCancellationHandler {
            await withCheckedContinuation { (waiter: Waiter) in
                if let now = fanout.withLock({ $0.park(id, waiter: waiter) }) { waiter.resume(returning: now) }
            }
        } onCancel: {
            leave(id)
        }
        guard case .frames(let frames) = delivery else { return nil }
        return frames
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

    private func connect(_ generation: Int) {
        let request = DaemonRequest.watch(enable: true, pace: pace).line
        ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
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

    /// The connection of `generation` closed (the daemon stopped, or the last stream left).
    func linkClosed(generation: Int) {
        apply(fanout.withLock { $0.linkClosed(generation: generation) })
    }

    /// Carries out a decision, outside the lock.
    private func apply(_ effects: Fanout.Effects) {
        for (waiter, delivery) in effects.resume { waiter.resume(returning: delivery) }
        for peer in effects.drop {
            logger.notice("Web browser too far behind the live stream; disconnected", metadata: ["web.pace": "\(pace)"])
            peer.close(promise: nil)
        }
        effects.close?.close(promise: nil)
    }
}
