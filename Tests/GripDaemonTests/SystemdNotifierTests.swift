import Foundation
import Glibc
import Testing

@Suite("sd_notify")
struct SystemdNotifierTests {
    @Test("READY=1 arrives on NOTIFY_SOCKET once the socket listens, STOPPING=1 on shutdown")
    func readyAndStopping() async throws {
        var template = Array("/tmp/gtn-XXXXXX".utf8CString)
        let directory = String(cString: try #require(mkdtemp(&template)))
        defer { _ = rmdir(directory) }
        let notifyPath = directory + "/notify"
        let receiver = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        defer {
            close(receiver)
            unlink(notifyPath)
        }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(notifyPath.utf8) + [0]) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(receiver, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        try #require(bound == 0)
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(receiver, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))

        let harness = try await DaemonHarness(capture: nil, environment: ["NOTIFY_SOCKET": notifyPath]).started()
        let ready = try #require(await Self.receive(receiver))
        #expect(ready.split(separator: "\n").contains("READY=1"))
        #expect(ready.contains("STATUS=Listening on \(harness.socketPath)"))
        // READY=1 means clients can connect now.
        let client = try harness.connect()
        #expect(try await client.readMessage()?["class"] as? String == "VERSION")
        try await harness.stop()
        let stopping = try #require(await Self.receive(receiver))
        #expect(stopping.split(separator: "\n").contains("STOPPING=1"))
    }

    /// Polls without blocking the cooperative pool (the notifier needs it to run); gives up after 10 s.
    static func receive(_ descriptor: Int32) async -> String? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        for _ in 0..<1000 {
            let count = recv(descriptor, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            if count > 0 { return String(decoding: buffer[..<count], as: UTF8.self) }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return nil
    }
}
