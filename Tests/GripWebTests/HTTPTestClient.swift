import Foundation
import Glibc

/// A response as the test client read it.
struct HTTPTestResponse: Sendable {
    var status: Int
    /// Header names lowercased; repeated headers in order.
    var headers: [(name: String, value: String)]
    var body: String

    func header(_ name: String) -> String? { headers.first { $0.name == name.lowercased() }?.value }
    func headers(_ name: String) -> [String] { headers.filter { $0.name == name.lowercased() }.map(\.value) }
    var json: [String: Any]? { try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any] }
}

/// A small blocking HTTP/1.1 client over a real TCP socket to 127.0.0.1: what the tests need and no more (one
/// request per connection, `Connection: close`, chunked bodies, an event stream read as it comes).
// SAFETY: @unchecked Sendable because each client belongs to one test, which uses it sequentially (every read awaits
// the thread it runs on before the next call), so no two threads touch its buffers at once.
final class HTTPTestClient: @unchecked Sendable {
    let descriptor: Int32
    private var raw: [UInt8] = []
    private(set) var status = 0
    private(set) var headers: [(name: String, value: String)] = []
    private var chunked = false
    /// The body decoded so far (chunked or not).
    private(set) var body: [UInt8] = []
    private var bodyStart = 0
    private(set) var closed = false
    /// Whether a chunked body's last chunk came: the response is whole.
    private(set) var complete = false

    /// Connects; `receiveBuffer` sets SO_RCVBUF first (a reader that never reads then stalls the server sooner).
    init(port: Int, receiveBuffer: Int? = nil, timeoutSeconds: Int = 10) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        if var size = receiveBuffer.map(Int32.init) {
            setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            close(descriptor)
            throw HarnessError("connect 127.0.0.1:\(port): errno \(errno)")
        }
    }

    deinit { close(descriptor) }

    /// Shuts the connection down both ways, as a browser closing its tab does (the descriptor stays until deinit).
    func disconnect() {
        shutdown(descriptor, Int32(SHUT_RDWR))
    }

    /// A response header (name in any case) once the head is read.
    func header(_ name: String) -> String? { headers.first { $0.name == name.lowercased() }?.value }

    func send(_ method: String, _ path: String, headers: [String: String] = [:], body: String? = nil) {
        var text = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        if let body { text += "Content-Length: \(body.utf8.count)\r\n" }
        text += "\r\n" + (body ?? "")
        let bytes = Array(text.utf8)
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count <= 0 { return }
            sent += count
        }
    }

    /// Reads once; false at end of stream. Throws after the receive timeout.
    @discardableResult
    func readSome() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let count = recv(descriptor, &chunk, chunk.count, 0)
        if count == 0 || (count < 0 && errno == ECONNRESET) {
            closed = true
            return false
        }
        if count < 0 { throw HarnessError("recv: errno \(errno)") }
        raw.append(contentsOf: chunk[..<count])
        parse()
        return true
    }

    /// Reads until the status line and headers are in.
    func readHead() throws {
        while status == 0 {
            guard try readSome() else { throw HarnessError("closed before the headers") }
        }
    }

    /// Reads to the end of the response (the server closes: `Connection: close`).
    func readAll() throws -> HTTPTestResponse {
        while try readSome() {}
        return HTTPTestResponse(status: status, headers: headers, body: String(decoding: body, as: UTF8.self))
    }

    private func parse() {
        if status == 0 {
            guard let end = raw.firstRange(of: Array("\r\n\r\n".utf8)) else { return }
            let head = String(decoding: raw[..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
            status = Int(head[0].split(separator: " ")[1]) ?? -1
            headers = head.dropFirst().compactMap { line in
                guard let colon = line.firstIndex(of: ":") else { return nil }
                return (line[..<colon].lowercased(), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
            }
            chunked = headers.contains { $0.name == "transfer-encoding" && $0.value.contains("chunked") }
            bodyStart = end.upperBound
        }
        if !chunked {
            body = Array(raw[bodyStart...])
            return
        }
        // Decode whole chunks as they complete.
        while true {
            guard let lineEnd = raw[bodyStart...].firstRange(of: Array("\r\n".utf8)) else { return }
            let sizeText = String(decoding: raw[bodyStart..<lineEnd.lowerBound], as: UTF8.self)
            guard let size = Int(sizeText.split(separator: ";")[0], radix: 16) else { return }
            if size == 0 {
                complete = true
                return
            }
            let dataStart = lineEnd.upperBound
            guard raw.count >= dataStart + size + 2 else { return }
            body.append(contentsOf: raw[dataStart..<dataStart + size])
            bodyStart = dataStart + size + 2
        }
    }

    /// The Server-Sent Events received so far that were not taken yet: (event, data).
    private var eventsTaken = 0
    func takeEvents() -> [(event: String, data: String)] {
        let text = String(decoding: body, as: UTF8.self)
        let blocks = text.components(separatedBy: "\n\n").dropLast()  // the last is incomplete (or empty)
        var events: [(String, String)] = []
        for block in blocks {
            var event = "message", data = ""
            for line in block.split(separator: "\n") {
                if line.hasPrefix("event: ") { event = String(line.dropFirst(7)) }
                if line.hasPrefix("data: ") { data = String(line.dropFirst(6)) }
            }
            if !data.isEmpty { events.append((event, data)) }
        }
        defer { eventsTaken = events.count }
        return Array(events.dropFirst(eventsTaken))
    }

    /// One request on a fresh connection.
    static func request(
        port: Int, _ method: String, _ path: String, headers: [String: String] = [:], body: String? = nil
    ) throws -> HTTPTestResponse {
        let client = try HTTPTestClient(port: port)
        client.send(method, path, headers: headers, body: body)
        return try client.readAll()
    }
}
