import Foundation
import Glibc
import GripDaemon
import GripHTTP
import GripProtocol
import GripTestSupport
import Testing
@testable import GripWeb

/// The web door's bounds (docs/web.md, "Limits"): a connection cap, an idle timeout, early refusals, and event
/// streams whose close is noticed while no line flows, all against the real server on loopback.
@Suite("Web app: door limits", .serialized)
struct WebDoorTests {
    /// Descriptors this process has open (the daemon and its web app run in it).
    static func openDescriptors() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1
    }

    /// Connections on `port` that this process has accepted and holds open. Counted by socket, not by descriptor:
    /// the other suites run beside this one in the same process and open descriptors of their own meanwhile.
    /// A connection still in the kernel's accept queue is in `/proc/net/tcp` but in no process's descriptor table.
    static func acceptedConnections(port: Int) -> Int {
        let established = "01"
        var inodes = Set<Substring>()
        for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
            // Read to the end: the table is longer than one read of it (a row per socket, hundreds here), and
            // the server's rows may lie past the first.
            guard let handle = FileHandle(forReadingAtPath: table), let data = try? handle.readToEnd() else { continue }
            try? handle.close()
            let text = String(decoding: data, as: UTF8.self)
            for row in text.split(separator: "\n").dropFirst() {
                let fields = row.split(separator: " ")
                // sl, local address:port (hex), remote, state, queues, timer, retransmits, uid, timeout, inode
                guard fields.count > 9, fields[3] == established,
                    let local = fields[1].split(separator: ":").last, Int(local, radix: 16) == port
                else { continue }
                inodes.insert(fields[9])
            }
        }
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return descriptors.filter { descriptor in
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(descriptor)"),
                target.hasPrefix("socket:[")
            else { return false }
            return inodes.contains(target.dropFirst("socket:[".count).dropLast())
        }.count
    }

    /// Resident memory of this process, in KiB.
    static func residentKiB() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") })
        else { return -1 }
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? -1
    }

    /// Waits up to `seconds` for `condition`.
    static func eventually(_ seconds: Double, _ condition: () -> Bool) async -> Bool {
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(100))
        }
        return condition()
    }

    @Test("200 silent connections hold at most the cap, the daemon's socket keeps answering, and the idle go")
    func silentFlood() async throws {
        let harness = try await WebHarness(configureWeb: { web in
            web.doorLimits = DoorLimits(maxConnections: 32, idleTimeout: .seconds(1), bodyLimit: WebSettings.bodyLimit)
        })
        let flood = try (0..<200).map { _ in try HTTPTestClient(port: harness.port, timeoutSeconds: 5) }
        // The server accepted at most its cap; the rest wait in the kernel's backlog, costing this process nothing.
        // Polled: the accepting thread may not have run yet when the last connect returns.
        var accepted = 0
        #expect(await Self.eventually(2) {
            accepted = Self.acceptedConnections(port: harness.port)
            return accepted > 0
        }, "no connection accepted")
        #expect(accepted <= 32, "\(accepted) accepted")
        // The daemon's own socket answers meanwhile (the CLI, MQTT and the web app's daemon links need it).
        let status = try await DaemonLink.ask(path: harness.socketPath, .status)
        #expect(DaemonLink.lineClass(status) == "STATUS")
        // Silent connections are closed by the server after the idle timeout, so the ones waiting get their turn
        // and are closed too: every one sees its end within a few timeouts.
        let closedAll = await offPool { flood.allSatisfy { client in (try? client.readSome()) == false || client.closed } }
        #expect(closedAll)
        drop(flood)
        // And a browser gets in afterwards.
        #expect(try await harness.request("GET", "/").status == 200)
        try await harness.stop()
    }

    @Test("a declared oversize body is 413 at once; a request head that never ends is closed")
    func earlyRefusals() async throws {
        let harness = try await WebHarness(configureWeb: { web in
            web.doorLimits = DoorLimits(maxConnections: 32, idleTimeout: .seconds(1), bodyLimit: WebSettings.bodyLimit)
        })
        let started = Date()
        let huge = try HTTPTestClient(port: harness.port)
        huge.send("POST", "/api/record", headers: ["Content-Length": "1000000000000"])
        let refused = try await offPool { try huge.readAll() }
        #expect(refused.status == 413)
        #expect(Date().timeIntervalSince(started) < 1)
        // Half a request head: closed by the server after its idle timeout, not held.
        let half = try HTTPTestClient(port: harness.port)
        _ = "GET / HTTP/1.1\r\nHost: x\r\n".withCString { write(half.descriptor, $0, strlen($0)) }
        let halfStarted = Date()
        let ended = await offPool { (try? half.readSome()) == false || half.closed }
        #expect(ended)
        #expect(Date().timeIntervalSince(halfStarted) < 5)
        try await harness.stop()
    }

    @Test("HEAD is GET without its body; OPTIONS lists the methods; HEAD of the event stream is 405")
    func headAndOptions() async throws {
        let harness = try await WebHarness()
        let head = try await harness.request("HEAD", "/")
        #expect(head.status == 200)
        #expect(head.body.isEmpty)
        #expect(head.header("content-type")?.hasPrefix("text/html") == true)
        let options = try await harness.request("OPTIONS", "/api/status")
        #expect(options.status == 204)
        #expect(options.header("allow")?.contains("GET") == true)
        #expect(options.header("access-control-allow-origin") == nil)
        #expect(try await harness.request("HEAD", "/api/events").status == 405)
        try await harness.stop()
    }

    @Test("2,000 event streams opened and closed while the device is idle leave descriptors and memory where they were")
    func closedStreamsDoNotLeak() async throws {
        // An idle device: a capture whose stream stays open after its end, so no line flows for the streams.
        let harness = try await WebHarness(
            anonymous: .watch,
            configureWeb: { web in web.eventHeartbeat = .milliseconds(200) })
        // One stream first, so that the shared WATCH and its buffers exist before the baseline.
        let first = try HTTPTestClient(port: harness.port)
        first.send("GET", "/api/events")
        try await offPool { try first.readHead() }
        // The replay (at 20×) ends within seconds; the device is then idle and no line flows.
        try await Task.sleep(for: .seconds(6))
        let descriptorsBefore = Self.openDescriptors()
        let memoryBefore = Self.residentKiB()
        for _ in 0..<2_000 {
            let client = try HTTPTestClient(port: harness.port)
            client.send("GET", "/api/events")
            try await offPool { try client.readHead() }
            client.disconnect()
        }
        let back = await Self.eventually(10) { Self.openDescriptors() <= descriptorsBefore + 4 }
        #expect(back, "descriptors \(descriptorsBefore) before, \(Self.openDescriptors()) after")
        let memoryAfter = Self.residentKiB()
        print("closedStreamsDoNotLeak: descriptors \(descriptorsBefore) → \(Self.openDescriptors()), RSS \(memoryBefore) → \(memoryAfter) KiB")
        #expect(memoryAfter - memoryBefore < 16 * 1024, "RSS \(memoryBefore) → \(memoryAfter) KiB")
        first.disconnect()
        try await harness.stop()
    }
}

/// Keeps the clients alive until here (their descriptors close in deinit).
private func drop(_ clients: [HTTPTestClient]) {
    for client in clients { client.disconnect() }
}
