import Foundation
import GripAnalysis
import GripEntitlements
import GripStore
import GripTestSupport
import Testing

@testable import GripSync

/// The ingest benchmark (docs/sync.md, "Measured"): not a timed test. It runs only with GRIPTRACK_BENCH_SYNC=1
/// (`scripts/bench-sync` runs it three times and takes medians) and prints one `BENCH` line per figure.
///
/// - `ingest`: DEVICES simulated Pis (GRIPTRACK_BENCH_DEVICES, default 100), each with MINUTES of recording at
///   80 Hz (GRIPTRACK_BENCH_MINUTES, default 60) stored through `saveRecording`, pushed at once (8 connections
///   at a time, as a server would see a fleet): samples/s over the wall time of the pushes, and bytes per sample
///   of `sample_chunks` on the server (table, TOAST and index).
/// - `latency`: a 10 s recording finished, pushed and visible in `list --everywhere`, 50 times: p50 and p99.
@Suite("Sync ingest benchmark", .serialized, .enabled(if: ProcessInfo.processInfo.environment["GRIPTRACK_BENCH_SYNC"] == "1"))
struct SyncIngestBenchmark {
    static func setting(_ name: String, _ fallback: Int) -> Int {
        ProcessInfo.processInfo.environment[name].flatMap(Int.init) ?? fallback
    }

    @Test("ingest rate and bytes per sample on the server")
    func ingest() async throws {
        let devices = Self.setting("GRIPTRACK_BENCH_DEVICES", 100)
        let minutes = Self.setting("GRIPTRACK_BENCH_MINUTES", 60)
        let cluster = try PostgresCluster()
        let pis = try (0..<devices).map { try Pi(cluster: cluster, device: "pi-\($0)") }
        let perDevice = minutes * 60 * 80
        let samples = Self.signal(count: perDevice)
        let recording = Recording(startMicros: 0, endMicros: samples.last?.micros ?? 0, efforts: [], falseStartsDropped: 0)
        for pi in pis {
            let draft = RecordingDraft(
                uuid: UUID(), startedAt: SyncFixtures.reference, device: "F4:12:FA:01:02:03",
                profile: "Tindeq Progressor", hand: .right, label: nil)
            _ = try pi.store.saveRecording(
                recording, samples: samples, draft: draft,
                endedAt: SyncFixtures.reference.addingTimeInterval(Double(minutes * 60)),
                context: AccessContext(bypass: true), now: Date())
        }
        try await pis[0].client.migrate()
        let started = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            var next = 0
            func addNext() {
                guard next < pis.count else { return }
                let pi = pis[next]
                next += 1
                group.addTask { try await pi.push() }
            }
            for _ in 0..<min(8, pis.count) { addNext() }
            while try await group.next() != nil { addNext() }
        }
        let elapsed = ContinuousClock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let total = devices * perDevice
        let stored = try await pis[0].client.count("SELECT sum(sample_count) FROM sample_chunks")
        #expect(stored == total)
        let bytes = try await pis[0].client.count("SELECT pg_total_relation_size('sample_chunks')")
        let blob = try await pis[0].client.count("SELECT sum(octet_length(samples)) FROM sample_chunks")
        print("BENCH ingest devices=\(devices) minutes=\(minutes) samples=\(total) seconds="
            + String(format: "%.3f", seconds) + " samples_per_s=" + String(format: "%.0f", Double(total) / seconds)
            + " server_bytes_per_sample=" + String(format: "%.2f", Double(bytes) / Double(total))
            + " blob_bytes_per_sample=" + String(format: "%.2f", Double(blob) / Double(total)))
    }

    @Test("catch-up after a week offline: one Pi, seven hour-long sessions, pushed from scratch")
    func catchUp() async throws {
        let cluster = try PostgresCluster()
        let pi = try Pi(cluster: cluster, device: "pi-offline")
        let samples = Self.signal(count: 60 * 60 * 80)
        let recording = Recording(startMicros: 0, endMicros: samples.last?.micros ?? 0, efforts: [], falseStartsDropped: 0)
        for day in 0..<7 {
            let draft = RecordingDraft(
                uuid: UUID(), startedAt: SyncFixtures.date(minutes: day * 24 * 60), device: "F4:12:FA:01:02:03",
                profile: "Tindeq Progressor", hand: .right, label: nil)
            _ = try pi.store.saveRecording(
                recording, samples: samples, draft: draft, endedAt: draft.startedAt.addingTimeInterval(3600),
                context: AccessContext(bypass: true), now: Date())
        }
        try await pi.client.migrate()
        let started = ContinuousClock.now
        let summary = try await pi.push()
        let elapsed = ContinuousClock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        #expect(summary.samples == 7 * samples.count)
        print("BENCH catchup samples=\(summary.samples) seconds=" + String(format: "%.3f", seconds)
            + " samples_per_s=" + String(format: "%.0f", Double(summary.samples) / seconds))
    }

    @Test("time from a recording's end to visible on the server")
    func latency() async throws {
        let cluster = try PostgresCluster()
        let pi = try Pi(cluster: cluster, device: "pi-latency")
        try await pi.client.migrate()
        var times: [Double] = []
        for index in 0..<50 {
            try pi.record(seconds: 10, minutes: index)
            let started = ContinuousClock.now
            try await pi.push()
            let rows = try await pi.client.recordingsEverywhere(limit: 1)
            let elapsed = ContinuousClock.now - started
            #expect(rows.count == 1)
            times.append(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
        }
        times.sort()
        print("BENCH latency runs=50 p50_ms=" + String(format: "%.1f", times[24] * 1000)
            + " p99_ms=" + String(format: "%.1f", times[49] * 1000))
    }

    /// A plausible force trace: 7 s pulls and 3 s rests with sensor noise, so the codec sees real deltas.
    static func signal(count: Int) -> [StoredSample] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { index in
            let t = Double(index) / 80
            let pulling = t.truncatingRemainder(dividingBy: 10) < 7
            let noise = Float(Int.random(in: -20...20, using: &generator)) * 0.005
            return StoredSample(
                micros: 1_000_000 + Int64(index) * 12_500, kilograms: (pulling ? 32 + 3 * Float(sin(t)) : 0.2) + noise)
        }
    }
}
