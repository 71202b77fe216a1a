import Foundation
import Glibc

/// A stand-in for griptrackd speaking protocol 1.1 from a script, on a socket in a fresh temporary directory: it
/// accepts one client, greets it, and answers each request class with the lines `replies` gives (one thread, no
/// pipeline). It records the requests it received.
///
/// Used to test the client side of `griptrack record` and `status` end to end before the real daemon speaks 1.1.
final class ScriptedDaemon: @unchecked Sendable {
    // SAFETY: `requestLog` is guarded by `lock`; the rest is immutable after init or owned by the server thread.
    let directory: String
    let socketPath: String
    private let listener: Int32
    private let lock = NSLock()
    private var requestLog: [String] = []
    private let done = DispatchSemaphore(value: 0)

    /// Lines to send for one request line (the request's `class`, the raw line); `nil` closes the connection.
    typealias Replies = @Sendable (_ requestClass: String, _ line: String) -> [String]?

    init(greeting: String = #"{"class":"VERSION","release":"0.1.0","proto_major":1,"proto_minor":1}"#,
         replies: @escaping Replies) throws {
        var template = Array("/tmp/gt-scripted-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw ScriptError("mkdtemp failed") }
        directory = String(cString: made)
        let path = directory + "/griptrack.sock"
        socketPath = path
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8) + [0]) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0, listen(descriptor, 4) == 0 else { throw ScriptError("bind/listen failed: errno \(errno)") }
        listener = descriptor
        Thread { [self] in
            serve(listener: descriptor, greeting: greeting, replies: replies)
            done.signal()
        }.start()
    }

    /// The request lines received so far.
    var requests: [String] { lock.withLock { requestLog } }

    /// Waits for the served connection to end, then removes the socket.
    func finish() {
        _ = done.wait(timeout: .now() + 10)
        close(listener)
        unlink(socketPath)
        rmdir(directory)
    }

    private func serve(listener: Int32, greeting: String, replies: Replies) {
        let client = accept(listener, nil, nil)
        guard client >= 0 else { return }
        defer { close(client) }
        func send(_ line: String) {
            let bytes = Array((line + "\n").utf8)
            _ = bytes.withUnsafeBytes { Glibc.send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        }
        send(greeting)
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(client, &chunk, chunk.count, 0)
            if count <= 0 { return }
            buffer.append(contentsOf: chunk[..<count])
            while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                lock.withLock { requestLog.append(line) }
                let object = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
                guard let lines = replies(object?["class"] as? String ?? "", line) else { return }
                for reply in lines { send(reply) }
            }
        }
    }
}

struct ScriptError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
