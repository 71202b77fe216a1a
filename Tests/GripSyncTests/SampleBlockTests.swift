import Foundation
import GripStore
import GripTestSupport
import Logging
import PostgresNIO
import Testing

@testable import GripSync

/// Samples on the server in blocks of 120 chunks (server migration 6, docs/sync.md, "Samples on the server").
@Suite(
    "Sample blocks on the server", .serialized,
    .enabled(if: PostgresCluster.shouldRun, "PostgreSQL 15 is not installed: run scripts/setup"))
struct SampleBlockTests {
    @Test("named chunks widen to their whole blocks, within the count, with the block the count ends in")
    func planCoversWholeBlocks() {
        #expect(PushPlan.blocks(covering: [], chunkCount: 0) == [])
        #expect(PushPlan.blocks(covering: [0...3], chunkCount: 4) == [0...3])
        // A label change names no chunk: the last block goes (it may hold chunks the device trimmed).
        #expect(PushPlan.blocks(covering: [], chunkCount: 250) == [240...249])
        #expect(PushPlan.blocks(covering: [130...139], chunkCount: 250) == [120...249])
        #expect(PushPlan.blocks(covering: [5...5, 300...310], chunkCount: 250) == [0...119, 240...249])
        #expect(PushPlan.blocks(covering: [0...249], chunkCount: 250) == [0...249])
    }

    @Test("a recording pushed while it grows past a block is stored once, in whole blocks, chunk for chunk")
    func growingRecording() async throws {
        let cluster = try PostgresCluster()
        let pi = try Pi(cluster: cluster, device: "pi-gym")
        let draft = RecordingDraft(
            uuid: UUID(), startedAt: SyncFixtures.date(minutes: 0), device: "F4:12:FA:01:02:03",
            profile: "Tindeq Progressor", hand: .right, label: nil)
        let id = try pi.store.beginRecording(draft) { _ in .admit }
        let writer = ChunkWriter(store: pi.store, recording: id, listingInterval: .zero)
        let samples = SyncFixtures.samples(count: 250 * 40)  // 250 chunks of 0.5 s: blocks of 120, 120 and 10
        for start in stride(from: 0, to: samples.count, by: 40) {
            try writer.append(samples[start..<(start + 40)])
            try writer.flush()
            // Pushes at chunks 100, 130 and 250: the first block is sent growing, then whole.
            if [100, 130].contains(start / 40 + 1) { try await pi.push() }
        }
        try await pi.push()
        #expect(try await pi.client.count("SELECT count(*) FROM sample_blocks") == 3)
        #expect(try await pi.client.count("SELECT count(*) FROM sample_chunks") == 250)
        let local = try SyncFixtures.localChunks(pi.store)
        let server = try await pi.client.serverChunks()
        #expect(server.map(\.chunk.sequence) == Array(0..<250))
        #expect(SyncFixtures.checksum(server) == SyncFixtures.checksum(local))
        // The whole recording planned and applied again: the blocks hold the same chunks, so no row is rewritten.
        let versions = "SELECT sum(xmin::text::bigint) FROM sample_blocks"
        let before = try await pi.client.count(versions)
        let plan = try PushPlan(
            [OutboxEntry(id: 1, kind: .chunks, recordingUUID: draft.uuid, sequences: 0...249, payload: nil, at: Date())],
            store: pi.store)
        try await pi.client.withConnection { connection throws(SyncError) in
            do {
                _ = try await connection.withTransaction(logger: pi.client.logger) { connection in
                    try await ServerWrites.apply(
                        plan, account: "crag-gym", deviceName: "pi-gym", on: connection, logger: pi.client.logger)
                }
            } catch {
                throw SyncError(error, operation: "apply")
            }
        }
        #expect(try await pi.client.count(versions) == before)
        #expect(SyncFixtures.checksum(try await pi.client.serverChunks()) == SyncFixtures.checksum(local))
    }

    @Test("a server of schema 5 keeps every chunk, byte for byte, when migration 6 moves them into blocks")
    func migrationFromChunkRows() async throws {
        let cluster = try PostgresCluster()
        let pi = try Pi(cluster: cluster, device: "pi-gym")
        try pi.record(seconds: 65)  // 130 chunks: a full block and 10 more
        try pi.record(seconds: 3, minutes: 5)
        let local = try SyncFixtures.localChunks(pi.store)
        let logger = pi.client.logger
        // What griptrack before migration 6 wrote: one row per chunk.
        try await pi.client.withConnection(migrating: false) { connection throws(SyncError) in
            do {
                try await Self.makeSchema5Server(with: local, on: connection, logger: logger)
            } catch {
                throw SyncError(error, operation: "make a schema 5 server")
            }
        }
        let rowsBefore = try await pi.client.count("SELECT count(*) FROM sample_chunks")
        #expect(rowsBefore == local.count)

        // 6 moves the chunks; 7 (who and how on recordings) comes with it and leaves them alone.
        #expect(try await pi.client.migrate() == [6, 7])
        #expect(try await pi.client.count("SELECT count(*) FROM sample_blocks") == 3)
        let server = try await pi.client.serverChunks()
        #expect(server.count == local.count)
        #expect(SyncFixtures.checksum(server) == SyncFixtures.checksum(local))
        // The push that follows finds the blocks it would write already there.
        try await pi.push()
        #expect(try await pi.client.count("SELECT count(*) FROM sample_blocks") == 3)
        #expect(SyncFixtures.checksum(try await pi.client.serverChunks()) == SyncFixtures.checksum(local))
    }

    /// Migrations 1 to 5, and `chunks` as their recordings' rows and chunk rows.
    static func makeSchema5Server(
        with chunks: [(uuid: UUID, chunk: RawSampleChunk)], on connection: PostgresConnection, logger: Logger
    ) async throws {
        _ = try await ServerSchema.migrate(connection, upTo: 5, logger: logger)
        try await connection.query(
            "INSERT INTO devices (account, device_name) VALUES (\("crag-gym"), \("pi-gym"))", logger: logger)
        for uuid in Set(chunks.map(\.uuid)) {
            try await connection.query(
                """
                INSERT INTO recordings (uuid, account, device_name, started_at, device, profile, state,
                                        sample_count, effort_count, updated_at)
                VALUES (\(uuid), 'crag-gym', 'pi-gym', now(), 'F4', 'Tindeq Progressor', 'complete', 0, 0,
                        '2000-01-01T00:00:00Z')
                """, logger: logger)
        }
        for (uuid, chunk) in chunks {
            try await connection.query(
                """
                INSERT INTO sample_chunks (recording_uuid, sequence, encoding, first_micros, sample_count, samples)
                VALUES (\(uuid), \(Int32(chunk.sequence)), \(Int16(chunk.encoding)), \(chunk.firstMicros),
                        \(Int32(chunk.sampleCount)), \(ByteBuffer(bytes: chunk.bytes)))
                """, logger: logger)
        }
    }
}
