import NIOCore

/// The end of a shared WATCH connection (``SharedWatch``) on its event loop: sends the WATCH request when the
/// connection is up and hands every line to the shared watch as it is read, so the daemon connection is read as fast
/// as the daemon writes and no line waits for a browser.
final class WatchLinkHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let watch: SharedWatch
    private let generation: Int
    private let request: String
    private var heartbeat: RepeatedTask?

    init(watch: SharedWatch, generation: Int, request: String) {
        self.watch = watch
        self.generation = generation
        self.request = request
    }

    func channelActive(context: ChannelHandlerContext) {
        context.writeAndFlush(NIOAny(context.channel.allocator.buffer(string: request)), promise: nil)
        watch.connected(generation: generation, connection: context.channel)
        // A comment frame to every stream while no line flows (a device asleep): a browser that went away is
        // noticed at the write that fails, within two beats, instead of at the next line, which may be days away.
        let (watch, generation) = (watch, generation)
        let allocator = context.channel.allocator
        heartbeat = context.eventLoop.scheduleRepeatedTask(
            initialDelay: watch.heartbeatInterval, delay: watch.heartbeatInterval
        ) { _ in
            watch.heartbeat(generation: generation, allocator: allocator)
        }
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        watch.receive(unwrapInboundIn(data), generation: generation, allocator: context.channel.allocator)
    }

    func channelInactive(context: ChannelHandlerContext) {
        heartbeat?.cancel()
        heartbeat = nil
        watch.linkClosed(generation: generation)
        context.fireChannelInactive()
    }

    /// A line over the limit (or a read error): the connection goes, and with it every stream; pages reconnect.
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
