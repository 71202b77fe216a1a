import Foundation
import Glibc
import GripStore
import Testing

@testable import GripDaemon

/// A full disk under a recording daemon: a state with one event each way and a bounded retry, never a loop, and the
/// same recording continues once space returns. Needs root to mount a small tmpfs (CI runs as root).
@Suite("Storage trouble", .serialized, .enabled(if: getuid() == 0, "mounting a tmpfs needs root"))
struct StorageTroubleTests {
    @Test("a disk that fills mid-recording: storage_failed, STATUS says why, then storage_recovered and every sample kept")
    func fullDiskMidRecording() async throws {
        let mountPoint = try DaemonHarness.makeTemporaryDirectory()
        try Self.run("/bin/mount", ["-t", "tmpfs", "-o", "size=4m", "tmpfs", mountPoint])
        defer { try? Self.run("/bin/umount", ["-l", mountPoint]) }

        // Real time, so the capture (66 s) is still streaming through the whole test however loaded the machine is:
        // the failure needs commits after the disk fills.
        let harness = try await DaemonHarness(speed: 1, databasePath: mountPoint + "/griptrack.db", keepsStreamOpen: true)
            .started()
        let client = try await harness.greetedClient()
        client.send("{\"class\":\"RECORD\"}\n")
        let id = try #require(try await client.read(until: "RECORD").match?["id"] as? Int)
        client.send("{\"class\":\"WATCH\"}\n")
        var seen = try await client.read(until: "SAMPLES").seen

        let filler = mountPoint + "/filler"
        try Self.fill(filler)
        let failed = try await client.read(until: "RECORDER", event: "storage_failed")
        seen += failed.seen
        let failure = try #require(failed.match, "no storage_failed event after the disk filled")
        #expect((failure["problem"] as? String)?.contains("full") == true, "\(failure)")
        #expect(failure["retry_s"] as? Int == 1)

        let status = try await harness.greetedClient()
        status.send("{\"class\":\"STATUS\"}\n")
        let recorder = try #require(try await status.read(until: "STATUS").match?["recorder"] as? [String: Any])
        #expect((recorder["problem"] as? String)?.contains("full") == true, "\(recorder)")
        #expect(recorder["state"] as? String == "recording")

        try FileManager.default.removeItem(atPath: filler)
        let recovered = try await client.read(until: "RECORDER", event: "storage_recovered")
        seen += recovered.seen
        let recovery = try #require(recovered.match, "no storage_recovered event after space returned")
        #expect(recovery["dropped_samples"] as? Int == 0)
        #expect((recovery["committed_samples"] as? Int ?? 0) > 0)
        // Exactly one event each way: a state change, not a loop.
        let events = seen.filter { $0["class"] as? String == "RECORDER" }.compactMap { $0["event"] as? String }
        #expect(events.filter { $0 == "storage_failed" }.count == 1)

        // A recording without an effort is discarded (it would take a free slot for nothing): on a fast run the disk
        // can fill and empty before the capture's first pull ends, so STOP waits for one.
        if !seen.contains(where: { $0["class"] as? String == "EFFORT" && $0["event"] as? String == "end" }) {
            let effort = try await client.read(until: "EFFORT", event: "end")
            seen += effort.seen
            #expect(effort.match != nil, "no effort ended while the capture streamed")
        }
        client.send("{\"class\":\"STOP\"}\n")
        let stopped = try await client.read(until: "STOP")
        seen += stopped.seen
        let saved = try #require(stopped.match)
        #expect(saved["event"] as? String == "saved")
        #expect(saved["id"] as? Int == id)
        try await harness.stop()

        let watched = seen.filter { $0["class"] as? String == "SAMPLES" }.compactMap { $0["t"] as? [Double] }.joined()
        let store = try RecordingStore(path: harness.databasePath)
        let row = try #require(try store.recording(RecordingID(rawValue: Int64(id))))
        #expect(row.state == .complete)
        let samples = try store.samples(of: row.id)
        #expect(samples.count == saved["samples"] as? Int)
        // Nothing missing across the full disk: every sample watched while the disk was full is stored, and the
        // stored stream has no hole (the capture's samples are at most ~23 ms apart).
        let stored = Set(samples.map(\.micros))
        let heldAndWatched = watched.map { Int64(($0 * 1_000_000).rounded()) }.filter { $0 <= (samples.last?.micros ?? 0) }
        #expect(heldAndWatched.allSatisfy(stored.contains), "samples held through the full disk were lost")
        #expect(zip(samples, samples.dropFirst()).allSatisfy { $0.micros < $1.micros && $1.micros - $0.micros < 50_000 })
    }

    /// Writes zeros until the filesystem says ENOSPC.
    static func fill(_ path: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard descriptor >= 0 else { throw HarnessError("cannot create \(path): errno \(errno)") }
        defer { close(descriptor) }
        let block = [UInt8](repeating: 0, count: 16 * 1024)
        while block.withUnsafeBytes({ write(descriptor, $0.baseAddress, $0.count) }) > 0 {}
        guard errno == ENOSPC else { throw HarnessError("filling \(path) stopped with errno \(errno), not ENOSPC") }
    }

    static func run(_ executable: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw HarnessError("\(executable) \(arguments.joined(separator: " ")) exited \(process.terminationStatus)")
        }
    }
}
