import Foundation
import GripDaemon
import GripTestSupport
import Logging
import Testing

/// The exposition of a daemon that replayed a capture: what `/metrics` serves (docs/metrics.md, "Prometheus").
@Suite("Prometheus exposition", .serialized, .timeLimit(.minutes(2)))
struct PrometheusExpositionTests {
    /// One line of a Unix-socket conversation with the daemon.
    static func status(socketPath: String) throws -> [String: Any] {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            let path = Array(socketPath.utf8)
            raw.copyBytes(from: path)
            raw[path.count] = 0
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        #expect(connected == 0)
        let request = Array("{\"class\":\"STATUS\"}\n".utf8)
        _ = request.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while received.filter({ $0 == UInt8(ascii: "\n") }).count < 2 {
            let count = read(descriptor, &chunk, chunk.count)
            guard count > 0 else { break }
            received += chunk[0..<count]
        }
        let lines = String(decoding: received, as: UTF8.self).split(separator: "\n")
        let line = lines.first { $0.contains("\"class\":\"STATUS\"") } ?? ""
        return (try JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] ?? [:]
    }

    /// The value of an unlabelled sample in the exposition.
    static func value(_ name: String, in text: String) -> Double? {
        text.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap { Double($0.split(separator: " ")[1]) }
    }

    @Test("after a replay the exposition passes promtool check metrics and its counters match STATUS")
    func replayedExpositionPassesPromtool() async throws {
        let directory = "/tmp/gt-metrics-" + String(UUID().uuidString.prefix(8)).lowercased()
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let configuration = DaemonConfiguration(
            socketPath: directory + "/griptrackd.sock",
            replayPath: CaptureFixtures.url("progressor-max-pulls.btsnoop").path, replaySpeed: 40,
            databasePath: directory + "/griptrack.db")
        let daemon = try Daemon(configuration: configuration, logger: Logger(label: "test"))
        let running = Task { try await daemon.run() }
        await daemon.waitUntilServing()
        let deadline = Date().addingTimeInterval(60)
        var text = ""
        while Date() < deadline {
            text = daemon.metricsExposition()
            // The recorder counts samples a take at a time, after the consumer has counted the notifications.
            if Self.value("griptrack_notifications_total", in: text) == 2883,
                Self.value("griptrack_recordings_stored{plan=\"free\"}", in: text) == 1,
                Self.value("griptrack_samples_total", in: text) == 5766
            {
                break
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        let status = try Self.status(socketPath: configuration.socketPath)
        text = daemon.metricsExposition()
        await daemon.shutdown()
        try await running.value

        // Counters equal STATUS's (the exposition reads the same numbers).
        let frames = status["frames"] as? [String: Any]
        #expect(Self.value("griptrack_notifications_total", in: text) == (frames?["total"] as? Double))
        #expect(Self.value("griptrack_frames_decoded_total", in: text) == (frames?["decoded"] as? Double))
        #expect(Self.value("griptrack_ring_dropped_total", in: text) == ((status["ring"] as? [String: Any])?["dropped"] as? Double))
        #expect(Self.value("griptrack_recordings_stored{plan=\"free\"}", in: text) == 1)
        #expect(Self.value("griptrack_recordings_stored{plan=\"pro\"}", in: text) == 0)
        // The STATUS connection was just closed: the socket thread may not have noticed yet.
        #expect([0, 1].contains(Self.value("griptrack_clients", in: text)))
        // Every decoded sample, taken by the recorder (the capture has 5766, docs: captures/*.expected.json).
        #expect(Self.value("griptrack_samples_total", in: text) == 5766)
        #expect((Self.value("griptrack_recorder_commits_total", in: text) ?? 0) >= 1)
        #expect(text.contains("griptrack_frames_rejected_total{reason=\"duplicate\"} 0"))
        #expect((Self.value("process_resident_memory_bytes", in: text) ?? 0) > 1_000_000)

        // promtool (Debian's prometheus package) lints names, types, units and HELP.
        let file = directory + "/metrics.txt"
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        let promtool = Process()
        promtool.executableURL = URL(fileURLWithPath: "/bin/sh")
        promtool.arguments = ["-c", "promtool check metrics < '\(file)' 2>&1"]
        let pipe = Pipe()
        promtool.standardOutput = pipe
        try promtool.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        promtool.waitUntilExit()
        #expect(promtool.terminationStatus == 0, "\(output)\n\(text)")
        #expect(output.isEmpty, "\(output)")
    }
}
