import Foundation
import GripAnalysis
import GripStore
import GripTestSupport
import Logging
import PostgresNIO
import Testing

@testable import GripSync

/// Who pulled and how, and the protocol, on the server (server migration 7, docs/sync.md, "Schema").
@Suite(
    "Athlete, grip, edge, body weight and protocol on the server", .serialized, .timeLimit(.minutes(1)),
    .enabled(if: PostgresCluster.shouldRun, "PostgreSQL 15 is not installed: run scripts/setup"))
struct RecordingSetupSyncTests {
    static let ana = RecordingDescription(
        hand: .left, label: "after warm-up", athlete: "Ana", grip: "half crimp", edgeMillimetres: 20,
        bodyWeightKilograms: 61.5, protocolNotation: "max 3x 10s rest 180s alternate", protocolMaxKilograms: 40)

    @Test("a labelled recording pushed by one device is read back by another with every field")
    func labelledRecordingReadBack() async throws {
        let cluster = try PostgresCluster()
        let gym = try Pi(cluster: cluster, device: "pi-gym")
        let home = try Pi(cluster: cluster, device: "pi-home")
        let id = try gym.record(seconds: 2)
        try gym.store.describeRecording(id, Self.ana)
        try await gym.push()

        let rows = try await home.client.recordingsEverywhere()
        #expect(rows.count == 1)
        #expect(rows.first?.hand == "left" && rows.first?.label == "after warm-up")
        #expect(
            rows.first?.setup
                == RecordingSetup(
                    athlete: "Ana", grip: "half crimp", edgeMillimetres: 20, bodyWeightKilograms: 61.5,
                    protocolNotation: "max 3x 10s rest 180s alternate", protocolMaxKilograms: 40))
        // The history trends read carries them too.
        let history = try await home.client.detailedHistoryEverywhere()
        #expect(history.map(\.recording.setup.athlete) == ["Ana"])
        #expect(history.first?.samples.count == 160)
    }

    @Test("labelling after a push queues the recording again: the next push brings the new values, a cleared one too")
    func labelAfterPushReachesServer() async throws {
        let cluster = try PostgresCluster()
        let gym = try Pi(cluster: cluster, device: "pi-gym")
        let id = try gym.record(seconds: 2)
        try gym.store.describeRecording(id, Self.ana)
        try await gym.push()
        #expect(try gym.store.syncStatus().pendingRows == 0)

        // Ana's recording was Ben's: another athlete, body weight and max; the edge was not known after all.
        try gym.store.describeRecording(
            id, RecordingDescription(athlete: "Ben", bodyWeightKilograms: 72, protocolMaxKilograms: 52))
        try gym.store.describeRecording(id, RecordingDescription(grip: ""))
        #expect(try gym.store.syncStatus().pendingRows == 2)
        try await gym.push()

        let row = try #require(try await gym.client.recordingsEverywhere().first)
        #expect(
            row.setup
                == RecordingSetup(
                    athlete: "Ben", grip: nil, edgeMillimetres: 20, bodyWeightKilograms: 72,
                    protocolNotation: "max 3x 10s rest 180s alternate", protocolMaxKilograms: 52))
        #expect(try await gym.client.count("SELECT count(*) FROM recordings WHERE grip IS NULL") == 1)
    }

    @Test("a server of schema 6 keeps its recordings through migration 7; the next push fills in the new columns")
    func migrationFromSchema6() async throws {
        let cluster = try PostgresCluster()
        let pi = try Pi(cluster: cluster, device: "pi-gym")
        let id = try pi.record(seconds: 2)
        try pi.record(seconds: 3, minutes: 5)
        // What griptrack before migration 7 left: the recordings, efforts and blocks, without the new columns.
        let logger = pi.client.logger
        try await pi.client.withConnection(migrating: false) { connection throws(SyncError) in
            do {
                _ = try await ServerSchema.migrate(connection, upTo: 6, logger: logger)
            } catch {
                throw SyncError(error, operation: "make a schema 6 server")
            }
        }
        let plan = try PushPlan(try pi.store.pendingOutbox(limit: 500), store: pi.store)
        try await pi.client.withConnection(migrating: false) { connection throws(SyncError) in
            do {
                _ = try await connection.withTransaction(logger: logger) { connection in
                    try await Self.applyAsSchema6(plan, on: connection, logger: logger)
                }
            } catch {
                throw SyncError(error, operation: "push as schema 6")
            }
        }
        let chunks = try await pi.client.count("SELECT count(*) FROM sample_chunks")

        #expect(try await pi.client.migrate() == [7])
        let rows = try await pi.client.recordingsEverywhere()
        #expect(rows.count == 2)
        #expect(rows.allSatisfy { $0.setup == RecordingSetup() })
        #expect(try await pi.client.count("SELECT count(*) FROM sample_chunks") == chunks)
        #expect(try await pi.client.count("SELECT count(*) FROM efforts") == 2)

        try pi.store.describeRecording(id, Self.ana)
        try await pi.push()
        let after = try await pi.client.recordingsEverywhere()
        #expect(after.map(\.setup.athlete) == [nil, "Ana"])
        #expect(try await pi.client.count("SELECT count(*) FROM sample_chunks") == chunks)
    }

    /// The recordings of `plan` as migration 6's upsert wrote them (no athlete, grip, edge, body weight or protocol
    /// column), with their efforts and sample blocks through today's writes.
    static func applyAsSchema6(_ plan: PushPlan, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query(
            "INSERT INTO devices (account, device_name) VALUES (\("crag-gym"), \("pi-gym"))", logger: logger)
        for case .recording(let recording, chunks: _, updatedAt: _) in plan.items {
            let row = recording.row
            try await connection.query(
                """
                INSERT INTO recordings (uuid, account, device_name, started_at, ended_at, device, profile, hand, label,
                                        state, sample_count, effort_count, max_kg, average_kg, updated_at)
                VALUES (\(row.uuid), 'crag-gym', 'pi-gym', \(row.startedAt), \(row.endedAt), \(row.device),
                        \(row.profile), \(row.hand?.rawValue), \(row.label), \(row.state.rawValue),
                        \(Int64(row.sampleCount)), \(Int32(recording.efforts.count)), \(row.maxKilograms),
                        \(row.averageKilograms), '2000-01-01T00:00:00Z')
                """, logger: logger)
        }
        // Efforts and blocks as today's push writes them: migration 7 did not change those tables.
        for case .recording(let recording, chunks: let chunks, updatedAt: _) in plan.items {
            try await ServerWrites.replaceEfforts(recording, on: connection, logger: logger)
            try await ServerWrites.upsertBlocks(chunks, of: recording.row.uuid, on: connection, logger: logger)
        }
    }
}
