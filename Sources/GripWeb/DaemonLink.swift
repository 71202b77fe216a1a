import Foundation
import GripProtocol
import NIOCore
import NIOPosix

/// A connection from the web layer to griptrackd's Unix socket (docs/protocol.md), as any client makes one: the web
/// app is one more client of the daemon, and forwards the daemon's JSON lines rather than re-encoding them.
///
/// These are the short-lived connections of queries; the live stream's shared WATCH connection is ``SharedWatch``'s.
enum DaemonLink {
    typealias Channel = NIOAsyncChannel<ByteBuffer, ByteBuffer>

    /// The longest line accepted from the daemon: a READ page or a HISTORY reply is long, a live line short.
    static let lineLimit = 32 << 20

    /// The web app's request slots (``WebSettings/daemonRequestSlots``): every query holds one while its connection
    /// is open, so the web app never opens more daemon connections than that, however many browsers ask at once.
    static let slots = RequestSlots(count: WebSettings.daemonRequestSlots)

    /// Connects to the daemon's socket.
    /// - Throws: `WebError.daemonUnavailable` when nobody listens there.
    static func connect(path: String) async throws -> Channel {
        do {
            return try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connect(unixDomainSocketPath: path) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(LineSplitter(limit: lineLimit)))
                        return try Channel(wrappingChannelSynchronously: channel)
                    }
                }
        } catch {
            throw WebError.daemonUnavailable(path: path)
        }
    }

    /// The `class` of a protocol line: the daemon writes it first, so most lines need no JSON parse.
    static func lineClass(_ line: ByteBuffer) -> String? {
        let prefix = #"{"class":""#
        let view = line.readableBytesView
        if view.starts(with: prefix.utf8) {
            let rest = view.dropFirst(prefix.utf8.count)
            if let end = rest.firstIndex(of: UInt8(ascii: "\"")) {
                return String(decoding: rest[..<end], as: UTF8.self)
            }
        }
        guard let object = try? JSONSerialization.jsonObject(with: Data(view)) as? [String: Any] else { return nil }
        return object["class"] as? String
    }

    /// Sends one request on a fresh connection and returns its reply line (the first line of class `replyClass`,
    /// or an `ERROR`), then closes it.
    /// - Throws: `WebError.daemonUnavailable`, `.daemonClosed`.
    static func ask(path: String, _ request: DaemonRequest) async throws -> ByteBuffer {
        try await ask(path: path, line: request.line, replyClass: request.className)
    }

    /// ``ask(path:_:)`` with the request line as written, newline included (the tests send malformed ones too).
    static func ask(path: String, line request: String, replyClass: String) async throws -> ByteBuffer {
        try await slots.withSlot {
            try await askNow(path: path, line: request, replyClass: replyClass)
        }
    }

    private static func askNow(path: String, line request: String, replyClass: String) async throws -> ByteBuffer {
        let channel = try await connect(path: path)
        return try await channel.executeThenClose { inbound, outbound in
            var lines = inbound.makeAsyncIterator()
            try await outbound.write(ByteBuffer(string: request))
            while let line = try await lines.next() {
                switch lineClass(line) {
                case replyClass?, "ERROR"?: return line
                default: continue  // VERSION, and anything else before the reply
                }
            }
            throw WebError.daemonClosed
        }
    }
}

extension DaemonLink {
    /// Sends `requests` one after another on one fresh connection and returns the daemon's greeting and each reply
    /// (the first line of its class, or an `ERROR`), then closes it.
    /// - Throws: `WebError.daemonUnavailable`, `.daemonClosed`.
    static func exchange(path: String, _ requests: [DaemonRequest]) async throws -> (version: ByteBuffer?, replies: [ByteBuffer]) {
        try await slots.withSlot { try await exchangeNow(path: path, requests) }
    }

    private static func exchangeNow(
        path: String, _ requests: [DaemonRequest]
    ) async throws -> (version: ByteBuffer?, replies: [ByteBuffer]) {
        let channel = try await connect(path: path)
        return try await channel.executeThenClose { inbound, outbound in
            var lines = inbound.makeAsyncIterator()
            var version: ByteBuffer?
            var replies: [ByteBuffer] = []
            for request in requests {
                try await outbound.write(ByteBuffer(string: request.line))
                var reply: ByteBuffer?
                while reply == nil, let line = try await lines.next() {
                    switch lineClass(line) {
                    case "VERSION"?: version = line
                    case request.className?, "ERROR"?: reply = line
                    default: continue
                    }
                }
                guard let reply else { throw WebError.daemonClosed }
                replies.append(reply)
            }
            return (version, replies)
        }
    }
}

/// Splits the daemon's byte stream into lines (without the newline).
struct LineSplitter: ByteToMessageDecoder {
    typealias InboundOut = ByteBuffer
    let limit: Int

    struct LineTooLong: Error {}

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let newline = buffer.readableBytesView.firstIndex(of: UInt8(ascii: "\n")) else {
            if buffer.readableBytes > limit { throw LineTooLong() }
            return .needMoreData
        }
        let line = buffer.readSlice(length: newline - buffer.readerIndex)!
        buffer.moveReaderIndex(forwardBy: 1)
        context.fireChannelRead(Self.wrapInboundOut(line))
        return .continue
    }

    mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        while try decode(context: context, buffer: &buffer) == .continue {}
        return .needMoreData
    }
}
