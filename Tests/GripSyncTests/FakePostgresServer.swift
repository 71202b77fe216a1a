import Foundation
import Synchronization

/// A TCP listener on 127.0.0.1 that plays the server side of a PostgreSQL connection badly on purpose: it
/// completes the startup and then goes silent or sends garbage, declines TLS and asks for a cleartext password,
/// or answers the startup with a huge error. It records every byte the client sent, so a test can check what
/// left the client (the password must not). One connection at a time, on a thread of its own.
final class FakePostgresServer: Sendable {
    enum Behaviour: Sendable {
        /// AuthenticationOk, ParameterStatus, BackendKeyData, ReadyForQuery; then nothing, ever.
        case silentAfterStartup
        /// The same startup, then these bytes in answer to the first query.
        case garbageAfterStartup([UInt8])
        /// `N` to the SSLRequest, then AuthenticationCleartextPassword.
        case declineTLSAskCleartext
        /// An ErrorResponse with this message in answer to the startup.
        case errorAtStartup(String)
        /// The same startup; the first query gets a NoticeResponse (not its answer), then the connection is closed,
        /// as when the server goes away mid-query.
        case hangUpAfterFirstQuery
    }

    let port: Int
    private let behaviour: Behaviour
    private let listener: Int32
    private let state = Mutex<(received: [UInt8], stopped: Bool)>(([], false))

    init(_ behaviour: Behaviour) throws {
        self.behaviour = behaviour
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.listener = listener
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(listener, address, length) == 0 && listen(listener, 4) == 0
                    && getsockname(listener, address, &length) == 0
            }
        }
        guard bound else {
            close(listener)
            throw CocoaError(.fileWriteUnknown)
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [self] in serve() }
        thread.start()
    }

    deinit {
        close(listener)
    }

    /// Every byte the client sent so far.
    var received: [UInt8] { state.withLock { $0.received } }

    /// Ends the thread (the connection it holds is closed).
    func stop() {
        state.withLock { $0.stopped = true }
    }

    private var stopped: Bool { state.withLock { $0.stopped } }

    private func serve() {
        while !stopped {
            var poller = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 100) > 0 else { continue }
            let client = accept(listener, nil, nil)
            guard client >= 0 else { continue }
            var timeout = timeval(tv_sec: 0, tv_usec: 100_000)
            setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            handle(client)
            close(client)
        }
    }

    private func handle(_ client: Int32) {
        // The first packet: an SSLRequest (8 bytes: length 8, code 80877103) or the StartupMessage.
        guard var first = readPacket(client) else { return }
        if first.count == 8, first[4...7] == [0x04, 0xD2, 0x16, 0x2F] {
            send(client, [UInt8(ascii: "N")])
            guard let startup = readPacket(client) else { return }
            first = startup
        }
        switch behaviour {
        case .silentAfterStartup:
            send(client, Self.startupReply)
            drain(client, answer: nil)
        case .garbageAfterStartup(let garbage):
            send(client, Self.startupReply)
            drain(client, answer: garbage)
        case .declineTLSAskCleartext:
            send(client, Self.message("R", Self.int32(3)))
            drain(client, answer: nil)
        case .hangUpAfterFirstQuery:
            send(client, Self.startupReply)
            var buffer = [UInt8](repeating: 0, count: 65536)
            guard recv(client, &buffer, buffer.count, 0) > 0 else { return }
            // A reply that is not the query's answer, then the close. (A DataRow for a statement that has none, the
            // other way to leave a query half-answered, makes postgres-nio 1.33 trap in its row stream's state
            // machine: not something a real server sends.)
            let fields = [UInt8(ascii: "S")] + Array("NOTICE".utf8) + [0] + [UInt8(ascii: "M")] + Array("going away".utf8) + [0, 0]
            send(client, Self.message("N", fields))
            shutdown(client, Int32(SHUT_RDWR))
        case .errorAtStartup(let text):
            let fields = [UInt8(ascii: "S")] + Array("FATAL".utf8) + [0] + [UInt8(ascii: "C")] + Array("28000".utf8)
                + [0] + [UInt8(ascii: "M")] + Array(text.utf8) + [0, 0]
            send(client, Self.message("E", fields))
            drain(client, answer: nil)
        }
    }

    /// Reads what the client sends until stopped or until it hangs up; sends `answer` after the first piece.
    private func drain(_ client: Int32, answer: [UInt8]?) {
        var answered = false
        while !stopped {
            var buffer = [UInt8](repeating: 0, count: 65536)
            let count = recv(client, &buffer, buffer.count, 0)
            if count == 0 { return }
            if count < 0 { continue }
            record(Array(buffer[0..<count]))
            if let answer, !answered {
                answered = true
                send(client, answer)
            }
        }
    }

    /// One length-prefixed packet of the startup phase (no type byte).
    private func readPacket(_ client: Int32) -> [UInt8]? {
        guard let header = readExactly(client, 4) else { return nil }
        let length = header.reduce(0) { $0 << 8 | Int($1) }
        guard (4...10_000).contains(length), let body = readExactly(client, length - 4) else { return nil }
        return header + body
    }

    private func readExactly(_ client: Int32, _ count: Int) -> [UInt8]? {
        var result: [UInt8] = []
        while result.count < count {
            if stopped { return nil }
            var buffer = [UInt8](repeating: 0, count: count - result.count)
            let read = recv(client, &buffer, buffer.count, 0)
            if read == 0 { return nil }
            if read < 0 { continue }
            result += buffer[0..<read]
            record(Array(buffer[0..<read]))
        }
        return result
    }

    private func record(_ bytes: [UInt8]) {
        state.withLock { $0.received += bytes }
    }

    private func send(_ client: Int32, _ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { Glibc.send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    static func int32(_ value: Int32) -> [UInt8] {
        withUnsafeBytes(of: value.bigEndian) { Array($0) }
    }

    static func message(_ type: Character, _ body: [UInt8]) -> [UInt8] {
        [type.asciiValue ?? 0] + int32(Int32(body.count + 4)) + body
    }

    static func parameter(_ name: String, _ value: String) -> [UInt8] {
        message("S", Array(name.utf8) + [0] + Array(value.utf8) + [0])
    }

    /// AuthenticationOk, the parameters postgres-nio reads, BackendKeyData, ReadyForQuery (idle).
    static let startupReply: [UInt8] =
        message("R", int32(0)) + parameter("server_version", "15.0") + parameter("client_encoding", "UTF8")
        + parameter("DateStyle", "ISO, MDY") + parameter("integer_datetimes", "on") + parameter("TimeZone", "UTC")
        + message("K", int32(4242) + int32(1234)) + message("Z", [UInt8(ascii: "I")])
}
