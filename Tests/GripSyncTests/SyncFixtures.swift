import Foundation
import GripEntitlements
import GripStore
import GripTestSupport
import Logging

@testable import GripSync

/// One simulated Pi: a store in a temporary file and a client for a device name.
final class Pi: Sendable {
    let directory: URL
    let store: RecordingStore
    let client: SyncClient

    convenience init(
        cluster: PostgresCluster, device: String, account: String = "crag-gym", batchSize: Int = 500,
        timeouts: SyncTimeouts = .standard
    ) throws {
        try self.init(
            endpoint: SyncFixtures.endpoint(cluster), device: device, account: account, batchSize: batchSize,
            timeouts: timeouts)
    }

    init(
        endpoint: SyncEndpoint, device: String, account: String = "crag-gym", batchSize: Int = 500,
        timeouts: SyncTimeouts = .standard
    ) throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("griptrack-sync-tests-\(UUID().uuidString)", isDirectory: true)
        store = try RecordingStore(path: directory.appendingPathComponent("griptrack.db").path)
        var settings = SyncSettings(endpoint: endpoint, account: account, deviceName: device, batchSize: batchSize)
        settings.timeouts = timeouts
        client = SyncClient(settings: settings, logger: Logger(label: "griptrack.sync.tests"))
    }

    deinit {
        try? FileManager.default.removeItem(at: directory)
    }

    /// Records one session through the store's live path: begin, chunk writer commits, finish with an effort.
    @discardableResult
    func record(seconds: Int, minutes: Int = 0, label: String? = nil, uuid: UUID = UUID()) throws -> RecordingID {
        let draft = RecordingDraft(
            uuid: uuid, startedAt: SyncFixtures.date(minutes: minutes), device: "F4:12:FA:01:02:03",
            profile: "Tindeq Progressor", hand: .right, label: label)
        let id = try store.beginRecording(draft) { _ in .admit }
        let writer = ChunkWriter(store: store, recording: id)
        // In 0.5 s slices as the live recorder commits them (one chunk each; one big append would be one chunk).
        let samples = SyncFixtures.samples(count: seconds * 80)
        for start in stride(from: 0, to: samples.count, by: 40) {
            try writer.append(samples[start..<min(start + 40, samples.count)])
            try writer.flush()
        }
        try writer.finish(
            summary: RecordingSummaryValues(
                endedAt: draft.startedAt.addingTimeInterval(TimeInterval(seconds)), maxKilograms: 34.75,
                averageKilograms: 34.75),
            efforts: [SyncFixtures.effort])
        return id
    }

    /// Pushes with Pro granted by the configuration's bypass flag.
    @discardableResult
    func push(progress: (PushProgress) -> Void = { _ in }) async throws(SyncError) -> PushSummary {
        try await client.push(from: store, context: AccessContext(bypass: true), progress: progress)
    }
}

enum SyncFixtures {
    static let reference = Date(timeIntervalSince1970: 1_772_355_600)

    static func date(minutes: Int) -> Date { reference.addingTimeInterval(TimeInterval(minutes * 60)) }

    /// Deadlines short enough for a test to wait them out, long enough for a loaded 2-core machine.
    static let shortTimeouts = SyncTimeouts(
        connect: .seconds(3), migration: .seconds(3), batch: .seconds(4), read: .seconds(4), lock: .seconds(1))

    /// A fake server on 127.0.0.1 (``FakePostgresServer``).
    static func endpoint(_ fake: FakePostgresServer, tls: SyncEndpoint.TLSMode, password: String? = nil) -> SyncEndpoint {
        SyncEndpoint(
            host: "127.0.0.1", port: fake.port, user: "griptrack", password: password, database: "griptrack", tls: tls)
    }

    static func endpoint(_ cluster: PostgresCluster) -> SyncEndpoint {
        SyncEndpoint(
            host: cluster.directory, port: PostgresCluster.port, user: PostgresCluster.user, database: "postgres",
            tls: .disable)
    }

    static func samples(count: Int, hertz: Int64 = 80, startMicros: Int64 = 1_000_000) -> [StoredSample] {
        (0..<count).map { index in
            StoredSample(
                micros: startMicros + Int64(index) * 1_000_000 / hertz,
                kilograms: 20 + 15 * Float(sin(Double(index) / 40)))
        }
    }

    static let effort = StoredEffort(
        index: 0, startMicros: 1_250_000, endMicros: 4_250_000, peakKilograms: 34.75, meanKilograms: 27.5,
        durationMicros: 3_000_000, timeToPeakMicros: 812_500, rfdKilogramsPerSecond: 61.25,
        impulseKilogramSeconds: 82.5, baselineKilograms: 0.25, isOpen: false)

    /// FNV-1a over (uuid, sequence, bytes) of every chunk, in (uuid, sequence) order: the same number for the same
    /// chunks, wherever they are read from.
    static func checksum(_ chunks: [(uuid: UUID, chunk: RawSampleChunk)]) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        func mix(_ bytes: some Sequence<UInt8>) {
            for byte in bytes {
                hash ^= UInt64(byte)
                hash &*= 0x100_0000_01b3
            }
        }
        let sorted = chunks.sorted {
            ($0.uuid.uuidString.lowercased(), $0.chunk.sequence) < ($1.uuid.uuidString.lowercased(), $1.chunk.sequence)
        }
        for (uuid, chunk) in sorted {
            mix(uuid.uuidString.lowercased().utf8)
            mix(withUnsafeBytes(of: Int64(chunk.sequence).littleEndian) { Array($0) })
            mix(chunk.bytes)
        }
        return hash
    }

    /// Every chunk of every recording in a store.
    static func localChunks(_ store: RecordingStore) throws -> [(uuid: UUID, chunk: RawSampleChunk)] {
        var result: [(uuid: UUID, chunk: RawSampleChunk)] = []
        for uuid in try store.recordingUUIDs() {
            result += try store.rawChunks(of: uuid).map { (uuid, $0) }
        }
        return result
    }
}
