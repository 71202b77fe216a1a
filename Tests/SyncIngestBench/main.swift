// The sync ingest benchmark (docs/sync.md, "Measured"; Benchmarks/README.md): an executable, so it runs in a release
// build without the test runner and without `-enable-testing`, and costs the default build nothing (Package.swift
// adds it only with GRIPTRACK_BENCH_SYNC=1). `scripts/bench-sync` builds it, runs it three times and takes medians.
//
//   sync-ingest-bench ingest DEVICES MINUTES   DEVICES simulated Pis, each with MINUTES of recording at 80 Hz stored
//                                              through `saveRecording`, pushed 8 at a time (as a server would see a
//                                              fleet): samples/s over the wall time of the pushes, and bytes per
//                                              sample of the samples' table on the server (in all, and its heap,
//                                              TOAST and indexes apart)
//   sync-ingest-bench catchup                  one Pi, seven hour-long sessions, pushed from scratch
//   sync-ingest-bench latency                  a 10 s recording finished, pushed and visible in `list --everywhere`,
//                                              50 times: p50 and p99
//
// Each prints one `BENCH` line. The server is a throwaway PostgreSQL 15 cluster (GripTestSupport's PostgresCluster:
// `fsync=off`, a Unix socket), as in the tests.

import Foundation
import GripAnalysis
import GripEntitlements
import GripStore
import GripSync
import GripTestSupport
import Logging
import NIOPosix
import PostgresNIO

/// One simulated Pi: a store in a temporary file and a client for a device name.
final class Pi: Sendable {
    let directory: URL
    let store: RecordingStore
    let client: SyncClient

    init(cluster: PostgresCluster, device: String) throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("griptrack-sync-bench-\(UUID().uuidString)", isDirectory: true)
        store = try RecordingStore(path: directory.appendingPathComponent("griptrack.db").path)
        client = SyncClient(
            settings: SyncSettings(endpoint: Bench.endpoint(cluster), account: "crag-gym", deviceName: device),
            logger: Logger(label: "griptrack.sync.bench"))
    }

    deinit {
        try? FileManager.default.removeItem(at: directory)
    }

    /// Stores `samples` as one finished recording (the store cuts it into chunks as the recorder would).
    func save(_ samples: [StoredSample], startedAt: Date) throws {
        let recording = Recording(
            startMicros: 0, endMicros: samples.last?.micros ?? 0, efforts: [], falseStartsDropped: 0)
        let draft = RecordingDraft(
            uuid: UUID(), startedAt: startedAt, device: "F4:12:FA:01:02:03", profile: "Tindeq Progressor",
            hand: .right, label: nil)
        let seconds = Double(samples.count) / 80
        _ = try store.saveRecording(
            recording, samples: samples, draft: draft, endedAt: startedAt.addingTimeInterval(seconds),
            context: AccessContext(bypass: true), now: Date())
    }

    /// Pushes with Pro granted by the configuration's bypass flag.
    @discardableResult
    func push() async throws -> PushSummary {
        try await client.push(from: store, context: AccessContext(bypass: true))
    }
}

/// A run whose figures would not mean what they say (the server holds fewer samples than were pushed).
struct BenchFailure: Error, CustomStringConvertible {
    var description: String
}

enum Bench {
    static let reference = Date(timeIntervalSince1970: 1_772_355_600)

    static func endpoint(_ cluster: PostgresCluster) -> SyncEndpoint {
        SyncEndpoint(
            host: cluster.directory, port: PostgresCluster.port, user: PostgresCluster.user, database: "postgres",
            tls: .disable)
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

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// One number the server computes, read as the cluster's owner (past row-level security).
    static func number(_ cluster: PostgresCluster, _ sql: String) async throws -> Double {
        let logger = Logger(label: "griptrack.sync.bench")
        let configuration = PostgresConnection.Configuration(
            unixSocketPath: cluster.directory + "/.s.PGSQL.\(PostgresCluster.port)", username: PostgresCluster.user,
            password: nil, database: "postgres")
        let connection = try await PostgresConnection.connect(
            on: MultiThreadedEventLoopGroup.singleton.next(), configuration: configuration, id: 1, logger: logger)
        defer { _ = connection.close() as EventLoopFuture<Void> }
        let rows = try await connection.query(PostgresQuery(unsafeSQL: "SELECT (\(sql))::double precision"), logger: logger)
        for try await value in rows.decode(Double?.self) { return value ?? 0 }
        return 0
    }

    static func ingest(devices: Int, minutes: Int) async throws {
        let cluster = try PostgresCluster()
        let pis = try (0..<devices).map { try Pi(cluster: cluster, device: "pi-\($0)") }
        let perDevice = minutes * 60 * 80
        let samples = signal(count: perDevice)
        for pi in pis { try pi.save(samples, startedAt: reference) }
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
        let elapsed = seconds(ContinuousClock.now - started)
        let total = devices * perDevice
        let stored = try await number(cluster, "SELECT sum(sample_count) FROM sample_chunks")
        guard Int(stored) == total else {
            throw BenchFailure(description: "the server holds \(Int(stored)) samples, not \(total)")
        }
        // The table the samples live in: per-chunk rows before server schema 6, per-block rows since.
        let samplesTable =
            try await number(cluster, "SELECT (to_regclass('sample_blocks') IS NOT NULL)::int") == 1
            ? "sample_blocks" : "sample_chunks"
        let bytes = try await number(cluster, "SELECT pg_total_relation_size('\(samplesTable)')")
        let blob = try await number(cluster, "SELECT sum(octet_length(samples)) FROM \(samplesTable)")
        // Where the bytes go: the table's own pages, its TOAST table with the TOAST index, and its other indexes.
        let heap = try await number(cluster, "SELECT pg_relation_size('\(samplesTable)')")
        let toast = try await number(
            cluster,
            "SELECT coalesce(sum(pg_total_relation_size(reltoastrelid)), 0) FROM pg_class "
                + "WHERE oid = '\(samplesTable)'::regclass AND reltoastrelid <> 0")
        let indexes = try await number(cluster, "SELECT pg_indexes_size('\(samplesTable)')")
        print(
            "BENCH ingest devices=\(devices) minutes=\(minutes) samples=\(total) seconds="
                + String(format: "%.3f", elapsed) + " samples_per_s=" + String(format: "%.0f", Double(total) / elapsed)
                + " server_bytes_per_sample=" + String(format: "%.2f", bytes / Double(total))
                + " blob_bytes_per_sample=" + String(format: "%.2f", blob / Double(total))
                + " heap_bytes_per_sample=" + String(format: "%.2f", heap / Double(total))
                + " toast_bytes_per_sample=" + String(format: "%.2f", toast / Double(total))
                + " index_bytes_per_sample=" + String(format: "%.2f", indexes / Double(total)))
    }

    static func catchUp() async throws {
        let cluster = try PostgresCluster()
        let pi = try Pi(cluster: cluster, device: "pi-offline")
        let samples = signal(count: 60 * 60 * 80)
        for day in 0..<7 { try pi.save(samples, startedAt: reference.addingTimeInterval(Double(day * 86_400))) }
        try await pi.client.migrate()
        let started = ContinuousClock.now
        let summary = try await pi.push()
        let elapsed = seconds(ContinuousClock.now - started)
        guard summary.samples >= 7 * samples.count else {
            throw BenchFailure(description: "pushed \(summary.samples) samples, not \(7 * samples.count)")
        }
        print(
            "BENCH catchup samples=\(7 * samples.count) seconds=" + String(format: "%.3f", elapsed)
                + " samples_per_s=" + String(format: "%.0f", Double(7 * samples.count) / elapsed))
    }

    static func latency() async throws {
        let cluster = try PostgresCluster()
        let pi = try Pi(cluster: cluster, device: "pi-latency")
        try await pi.client.migrate()
        let samples = signal(count: 10 * 80)
        var times: [Double] = []
        for index in 0..<50 {
            try pi.save(samples, startedAt: reference.addingTimeInterval(Double(index * 60)))
            let started = ContinuousClock.now
            try await pi.push()
            let rows = try await pi.client.recordingsEverywhere(limit: 1)
            times.append(seconds(ContinuousClock.now - started))
            guard rows.count == 1 else { throw BenchFailure(description: "the recording is not visible") }
        }
        times.sort()
        print(
            "BENCH latency runs=50 p50_ms=" + String(format: "%.1f", times[24] * 1000) + " p99_ms="
                + String(format: "%.1f", times[49] * 1000))
    }
}

let arguments = CommandLine.arguments.dropFirst()
switch arguments.first {
case "ingest":
    let numbers = arguments.dropFirst().compactMap { Int($0) }
    try await Bench.ingest(devices: numbers.first ?? 100, minutes: numbers.dropFirst().first ?? 60)
case "catchup":
    try await Bench.catchUp()
case "latency":
    try await Bench.latency()
default:
    FileHandle.standardError.write(Data("usage: sync-ingest-bench ingest [DEVICES [MINUTES]] | catchup | latency\n".utf8))
    exit(2)
}
