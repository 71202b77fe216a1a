import Foundation
import Glibc

/// One HTTP/1.1 request over a real TCP socket to 127.0.0.1 (`Connection: close`, read to the end), run on a
/// thread of its own so the blocking calls never hold a Swift concurrency thread the hub may need.
enum LoopbackHTTP {
    struct Response: Sendable {
        var status: Int
        var body: String
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static func request(
        port: Int, _ method: String, _ path: String, headers: [String: String] = [:], body: String? = nil
    ) async throws -> Response {
        // A thread of its own: Dispatch's global queue runs about one blocking item per core here, which would
        // turn 50 concurrent requests into a queue.
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                continuation.resume(with: Result { try blocking(port: port, method, path, headers: headers, body: body) })
            }
            thread.start()
        }
    }

    private static func blocking(
        port: Int, _ method: String, _ path: String, headers: [String: String], body: String?
    ) throws -> Response {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw Failure(description: "socket: errno \(errno)") }
        defer { close(descriptor) }
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw Failure(description: "connect 127.0.0.1:\(port): errno \(errno)") }
        var text = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        if let body { text += "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n" }
        text += "\r\n" + (body ?? "")
        let bytes = Array(text.utf8)
        var sent = 0
        while sent < bytes.count {
            let n = bytes.withUnsafeBytes { send(descriptor, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL)) }
            // The server may answer (413) and close before reading the whole body: keep what it said.
            guard n > 0 else { break }
            sent += n
        }
        var raw: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            guard n > 0 else { break }
            raw += buffer[0..<n]
        }
        let response = String(decoding: raw, as: UTF8.self)
        guard let statusLine = response.split(separator: "\r\n", maxSplits: 1).first,
            let code = statusLine.split(separator: " ").dropFirst().first.flatMap({ Int($0) })
        else { throw Failure(description: "no HTTP status line in \(response.prefix(200))") }
        let body = response.range(of: "\r\n\r\n").map { String(response[$0.upperBound...]) } ?? ""
        return Response(status: code, body: body)
    }
}
