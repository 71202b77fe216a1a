import Foundation
import GripProtocol
import Glibc
import GripSystem

/// A client connection to griptrackd's Unix socket (docs/protocol.md): connects, reads the `VERSION` greeting,
/// sends request lines and reads message lines.
///
/// Blocking reads wait at most 10 s for the daemon (a stuck peer fails the command instead of hanging it); the
/// record loop polls `descriptor` itself and calls `readAvailable()` only when it is readable.
///
/// - Important: one thread at a time.
final class DaemonConnection {
    /// The socket path.
    let path: String
    /// The connected socket, for poll(2).
    let descriptor: Int32
    /// The greeting.
    private(set) var version = DaemonMessage.Version(release: "?", protoMajor: 0, protoMinor: 0)
    private var buffer: [UInt8] = []
    private var isClosed = false

    /// Connects to `path` and reads the greeting.
    /// - Throws: `.notRunning` (no socket file), `.notListening` (nobody accepts), `.connectFailed`,
    ///   `.notAuthorized` (the daemon's refusal), `.closed`/`.malformed` for a peer that is not griptrackd.
    init(path: String) throws(DaemonClientError) {
        self.path = path
        let pathBytes = Array(path.utf8)
        var address = sockaddr_un()
        guard pathBytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            throw .connectFailed(path: path, reason: "the path is longer than 107 bytes")
        }
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw .connectFailed(path: path, reason: String(cString: strerror(errno))) }
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: pathBytes + [0])
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        if result != 0 {
            let code = errno
            Glibc.close(descriptor)
            switch code {
            case ENOENT: throw .notRunning(path: path)
            case ECONNREFUSED: throw .notListening(path: path)
            default: throw .connectFailed(path: path, reason: String(cString: strerror(code)))
            }
        }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        self.descriptor = descriptor

        guard let greeting = try next() else { throw .closed }
        switch greeting.message {
        case .version(let version):
            self.version = version
        case .error(let problem) where problem.message.hasPrefix("not authorized"):
            throw .notAuthorized(message: problem.message)
        case .error(let problem):
            throw .daemon(message: problem.message)
        default:
            throw .malformed(line: greeting.line)
        }
    }

    deinit { close() }

    /// Closes the socket (the daemon stops an explicit recording this client started). Idempotent.
    func close() {
        guard !isClosed else { return }
        isClosed = true
        Glibc.close(descriptor)
    }

    /// Whether the daemon speaks at least protocol 1.`minor`.
    func supports(minor: Int) -> Bool { version.protoMajor == 1 && version.protoMinor >= minor }

    /// Throws unless the daemon speaks at least protocol 1.`minor`.
    func require(minor: Int) throws(DaemonClientError) {
        guard supports(minor: minor) else {
            throw .protocolTooOld(
                release: version.release, major: version.protoMajor, minor: version.protoMinor, needed: "1.\(minor)")
        }
    }

    /// Sends one request line (the newline is added).
    /// - Throws: `.connectionLost` when the write fails.
    func send(_ request: DaemonRequest) throws(DaemonClientError) {
        let bytes = Array(request.line.utf8)
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { unsent in
                SystemCall.retryingOnInterrupt { Glibc.send(descriptor, unsent.baseAddress, unsent.count, Int32(MSG_NOSIGNAL)) }
            }
            if count < 0 { throw .connectionLost(reason: String(cString: strerror(errno))) }
            sent += count
        }
    }

    /// The next complete line already received, parsed, without reading from the socket.
    func buffered() throws(DaemonClientError) -> (message: DaemonMessage, line: String)? {
        guard let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) else { return nil }
        let line = String(decoding: buffer[..<newline], as: UTF8.self)
        buffer.removeSubrange(...newline)
        guard let message = DaemonMessage.parse(line) else { throw .malformed(line: String(line.prefix(200))) }
        return (message, line)
    }

    /// Reads once from the socket into the buffer.
    /// - Returns: false at end of stream (the daemon closed the connection).
    /// - Throws: `.connectionLost` on a read error or after 10 s without data.
    func readAvailable() throws(DaemonClientError) -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let count = SystemCall.retryingOnInterrupt { recv(descriptor, &chunk, chunk.count, 0) }
        if count > 0 {
            buffer.append(contentsOf: chunk[..<count])
            return true
        }
        if count == 0 { return false }
        if errno == EAGAIN { throw .connectionLost(reason: "no answer within 10 s") }
        throw .connectionLost(reason: String(cString: strerror(errno)))
    }

    /// The next message, reading as needed; nil at end of stream.
    func next() throws(DaemonClientError) -> (message: DaemonMessage, line: String)? {
        while true {
            if let message = try buffered() { return message }
            guard try readAvailable() else { return nil }
        }
    }

    /// Sends `request` and reads until its reply (a message `isReply` accepts, or `ERROR`), handing every other
    /// message to `other` on the way.
    /// - Returns: the reply and its line as sent.
    /// - Throws: `.daemon` for an `ERROR` reply, `.closed` at end of stream, and the read errors.
    @discardableResult
    func request(
        _ request: DaemonRequest, isReply: (DaemonMessage) -> Bool,
        other: (DaemonMessage, String) -> Void = { _, _ in }
    ) throws(DaemonClientError) -> (message: DaemonMessage, line: String) {
        try send(request)
        while let (message, line) = try next() {
            if case .error(let problem) = message { throw .daemon(message: problem.message) }
            if isReply(message) { return (message, line) }
            other(message, line)
        }
        throw .closed
    }
}
