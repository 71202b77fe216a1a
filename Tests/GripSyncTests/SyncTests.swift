import Foundation
import GripEntitlements
import GripStore
import GripTestSupport
import Testing

@testable import GripSync

/// Sync against a real PostgreSQL 15: each test starts its own throwaway cluster (``PostgresCluster``).
/// Without PostgreSQL installed the suite is skipped (run scripts/setup); in CI (`CI` set) it runs and fails.
@Suite(
    "Sync to PostgreSQL", .serialized,
    .enabled(if: PostgresCluster.shouldRun, "PostgreSQL 15 is not installed: run scripts/setup"))
struct SyncTests {
    @Test("two Pis of one account see each other's recordings, each with its device name")
    func twoPisSeeEachOther() async throws {
        let cluster = try PostgresCluster()
        let gym = try Pi(cluster: cluster, device: "pi-gym")
        let home = try Pi(cluster: cluster, device: "pi-home")
        let other = try Pi(cluster: cluster, device: "pi-other", account: "someone-else")
        let a = try gym.record(seconds: 5, minutes: 0, label: "gym")
        try home.record(seconds: 3, minutes: 10, label: "home")
        try other.record(seconds: 2, minutes: 20)
        try await gym.push()
        try await home.push()
        try await other.push()

        for pi in [gym, home] {
            let rows = try await pi.client.recordingsEverywhere()
            #expect(rows.map(\.deviceName) == ["pi-home", "pi-gym"])
            #expect(rows.map(\.label) == ["home", "gym"])
            #expect(rows.map(\.sampleCount) == [240, 400])
            #expect(rows.allSatisfy { $0.state == "complete" && $0.effortCount == 1 })
        }
        #expect(try await gym.client.recordingsEverywhere().last?.uuid == gym.store.recording(a)?.uuid)
        #expect(try await other.client.recordingsEverywhere().map(\.deviceName) == ["pi-other"])
        // A page says how many of the account's recordings it leaves out (another account's are not counted).
        let page = try await gym.client.recordingPageEverywhere(limit: 1)
        #expect(page.recordings.map(\.deviceName) == ["pi-home"])
        #expect(page.total == 2 && page.hidden == 1)
        #expect(try gym.store.syncStatus().pendingRows == 0)
        #expect(try gym.store.syncStatus().lastSuccessAt != nil)
    }

    @Test("the server stopped between batches and restarted: a retry loses nothing and duplicates nothing")
    func serverRestartMidSync() async throws {
        let cluster = try PostgresCluster()
        let pi = try Pi(cluster: cluster, device: "pi-gym", batchSize: 3)
        for minute in 0..<4 { try pi.record(seconds: 20, minutes: minute * 10) }
        try pi.record(seconds: 1, minutes: 60)
        let pendingBefore = try pi.store.syncStatus().pendingRows
        #expect(pendingBefore > 6)

        var batches = 0
        await #expect(throws: SyncError.self) {
            try await pi.push { _ in
                batches += 1
                if batches == 2 { try? cluster.stop() }
            }
        }
        #expect(batches == 2)
        let status = try pi.store.syncStatus()
        #expect(status.pendingRows == pendingBefore - 6)
        #expect(status.lastError?.isEmpty == false)

        try cluster.start()
        try await pi.push()
        // The first two batches again, as if their acknowledgement had been lost: the upserts absorb them.
        #expect(try pi.store.syncStatus().pendingRows == 0)

        let local = try SyncFixtures.localChunks(pi.store)
        let server = try await pi.client.serverChunks()
        #expect(server.count == local.count)
        #expect(SyncFixtures.checksum(server) == SyncFixtures.checksum(local))
        #expect(try await pi.client.count("SELECT count(*) FROM recordings") == 5)
        #expect(try await pi.client.count("SELECT sum(sample_count) FROM sample_chunks") == (4 * 20 + 1) * 80)
        #expect(try await pi.client.count("SELECT sum(sample_count) FROM recordings") == (4 * 20 + 1) * 80)
        #expect(try await pi.client.count("SELECT count(*) FROM efforts") == 5)
    }

    @Test("a tail trimmed after it was pushed (the recording ended before it) is trimmed on the server too")
    func trimmedTailTravels() async throws {
        let cluster = try PostgresCluster()
        let pi = try Pi(cluster: cluster, device: "pi-gym")
        let draft = RecordingDraft(
            uuid: UUID(), startedAt: SyncFixtures.date(minutes: 0), device: "F4:12:FA:01:02:03",
            profile: "Tindeq Progressor", hand: .right, label: nil)
        let id = try pi.store.beginRecording(draft) { _ in .admit }
        // Every commit lists its chunks, so the push mid-recording has them all (a live writer lists every 10 s).
        let writer = ChunkWriter(store: pi.store, recording: id, listingInterval: .zero)
        let samples = SyncFixtures.samples(count: 160)  // 2 s at 80 Hz from 1 s, committed as four 0.5 s chunks
        for start in stride(from: 0, to: samples.count, by: 40) {
            try writer.append(samples[start..<(start + 40)])
            try writer.flush()
        }
        try await pi.push()
        #expect(try await pi.client.count("SELECT count(*) FROM sample_chunks") == 4)

        // Keep up to 1.7 s (57 samples): the second chunk keeps its first 17, the third and fourth go.
        #expect(try writer.trim(after: 1_700_000) == 160 - 57)
        try await pi.push()
        let local = try SyncFixtures.localChunks(pi.store)
        let server = try await pi.client.serverChunks()
        #expect(server.count == 2)
        #expect(SyncFixtures.checksum(server) == SyncFixtures.checksum(local))
        #expect(try await pi.client.count("SELECT sum(sample_count) FROM sample_chunks") == 57)
        #expect(try await pi.client.count("SELECT sample_count FROM recordings") == 57)
    }

    @Test("a batch applied twice (acknowledgement lost after the commit) leaves the same rows")
    func reappliedBatchIsIdempotent() async throws {
        let cluster = try PostgresCluster()
        let pi = try Pi(cluster: cluster, device: "pi-gym")
        try pi.record(seconds: 10)
        try pi.store.grantPro(note: "coach", expires: nil, by: "test", now: SyncFixtures.date(minutes: 1))
        let plan = try PushPlan(try pi.store.pendingOutbox(limit: 1000), store: pi.store)
        for _ in 0..<2 {
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
        }
        #expect(try await pi.client.count("SELECT count(*) FROM recordings") == 1)
        #expect(try await pi.client.count("SELECT count(*) FROM sample_chunks") == 20)
        #expect(try await pi.client.count("SELECT count(*) FROM efforts") == 1)
        #expect(try await pi.client.count("SELECT count(*) FROM subscription_events") == 1)
        #expect(try await pi.client.count("SELECT count(*) FROM subscription_state WHERE tier = 'pro'") == 1)
    }

    @Test("a delete on one device disappears everywhere and a late re-send does not bring it back")
    func deleteTravelsAsTombstone() async throws {
        let cluster = try PostgresCluster()
        let gym = try Pi(cluster: cluster, device: "pi-gym")
        let home = try Pi(cluster: cluster, device: "pi-home")
        let kept = try gym.record(seconds: 2, minutes: 0)
        let doomed = try gym.record(seconds: 2, minutes: 5)
        let doomedUUID = try #require(try gym.store.recording(doomed)?.uuid)
        try await gym.push()
        let stale = try PushPlan(
            [OutboxEntry(id: 1, kind: .chunks, recordingUUID: doomedUUID, sequences: 0...3, payload: nil, at: Date())],
            store: gym.store)
        #expect(try await home.client.recordingsEverywhere().count == 2)

        try gym.store.delete(doomed)
        try await gym.push()
        let rows = try await home.client.recordingsEverywhere()
        #expect(rows.map(\.uuid) == [try #require(try gym.store.recording(kept)?.uuid)])
        #expect(try await gym.client.count("SELECT count(*) FROM tombstones") == 1)
        #expect(try await gym.client.count("SELECT count(*) FROM sample_chunks") == 4)

        // The upsert of a batch planned before the delete, arriving after the tombstone.
        try await gym.client.withConnection { connection throws(SyncError) in
            do {
                try await ServerWrites.apply(
                    stale, account: "crag-gym", deviceName: "pi-gym", on: connection, logger: gym.client.logger)
            } catch {
                throw SyncError(error, operation: "apply")
            }
        }
        #expect(try await home.client.recordingsEverywhere().count == 1)
    }

    @Test("another device cannot overwrite a recording it does not own")
    func ownershipByDevice() async throws {
        let cluster = try PostgresCluster()
        let gym = try Pi(cluster: cluster, device: "pi-gym")
        let intruder = try Pi(cluster: cluster, device: "pi-intruder")
        let id = try gym.record(seconds: 2, label: "mine")
        try await gym.push()
        try gym.store.describeRecording(id, hand: nil, label: "changed")
        let forged = try PushPlan(try gym.store.pendingOutbox(limit: 10), store: gym.store)
        try await intruder.client.withConnection { connection throws(SyncError) in
            do {
                try await ServerWrites.apply(
                    forged, account: "crag-gym", deviceName: "pi-intruder", on: connection, logger: gym.client.logger)
            } catch {
                throw SyncError(error, operation: "apply")
            }
        }
        #expect(try await gym.client.recordingsEverywhere().map(\.label) == ["mine"])
        #expect(try await gym.client.recordingsEverywhere().map(\.deviceName) == ["pi-gym"])
    }

    @Test("two clients migrating an empty database at once both succeed and apply each version once")
    func concurrentMigrators() async throws {
        let cluster = try PostgresCluster()
        let clients = try (0..<4).map { try Pi(cluster: cluster, device: "pi-\($0)") }
        let applied = try await withThrowingTaskGroup(of: [Int].self) { group in
            for pi in clients { group.addTask { try await pi.client.migrate() } }
            var all: [[Int]] = []
            for try await versions in group { all.append(versions) }
            return all
        }
        #expect(applied.filter { !$0.isEmpty } == [ServerSchema.migrations.map(\.version)])
        #expect(try await clients[0].client.count("SELECT count(*) FROM griptrack_schema") == ServerSchema.migrations.count)
    }

    @Test("entitlement changes reach subscription_state and subscription_events")
    func subscriptionMirror() async throws {
        let cluster = try PostgresCluster()
        let pi = try Pi(cluster: cluster, device: "pi-gym")
        try pi.store.grantPro(note: "coach", expires: nil, by: "test", now: SyncFixtures.date(minutes: 0))
        try await pi.client.push(from: pi.store, context: AccessContext(), now: Date())
        #expect(try await pi.client.count(
            "SELECT count(*) FROM subscription_state WHERE tier = 'pro' AND source = 'manualOverride'") == 1)
        try pi.store.clearManualOverride(by: "test", at: SyncFixtures.date(minutes: 1))
        try await pi.push()
        #expect(try await pi.client.count(
            "SELECT count(*) FROM subscription_state WHERE tier = 'free' AND device_name = 'pi-gym'") == 1)
        #expect(try await pi.client.count("SELECT count(*) FROM subscription_events") == 2)
    }

    @Test("a device that lost Pro still ships its entitlement rows, then is refused; its recordings wait")
    func downgradeReachesTheMirror() async throws {
        let cluster = try PostgresCluster()
        let pi = try Pi(cluster: cluster, device: "pi-gym")
        try pi.store.grantPro(note: "coach", expires: nil, by: "test", now: SyncFixtures.date(minutes: 0))
        try await pi.client.push(from: pi.store, context: AccessContext(), now: Date())
        #expect(try await pi.client.count("SELECT count(*) FROM subscription_state WHERE tier = 'pro'") == 1)

        try pi.store.clearManualOverride(by: "test", at: SyncFixtures.date(minutes: 1))
        try pi.record(seconds: 2, minutes: 2)
        let reason = try pi.store.accessStatus(AccessContext(), now: Date()).access.reason
        await #expect(throws: SyncError.proRequired(reason: reason)) {
            try await pi.client.push(from: pi.store, context: AccessContext(), now: Date())
        }
        #expect(try await pi.client.count(
            "SELECT count(*) FROM subscription_state WHERE tier = 'free' AND device_name = 'pi-gym'") == 1)
        #expect(try await pi.client.count("SELECT count(*) FROM subscription_events") == 2)
        // Only Pro ships recordings: the recording's rows are still waiting, the entitlement row is gone.
        #expect(try await pi.client.count("SELECT count(*) FROM recordings") == 0)
        #expect(try pi.store.pendingOutbox(limit: 100, only: .entitlement).isEmpty)
        #expect(try !pi.store.pendingOutbox(limit: 100).isEmpty)
        // A second refused push opens no connection for nothing and changes nothing on the server.
        await #expect(throws: SyncError.proRequired(reason: reason)) {
            try await pi.client.push(from: pi.store, context: AccessContext(), now: Date())
        }
        #expect(try await pi.client.count("SELECT count(*) FROM subscription_events") == 2)
    }
}

/// Sync is Pro; no server is needed to be refused.
@Suite("Sync gate")
struct SyncGateTests {
    @Test("the free plan is refused with the resolver's reason, and the outbox keeps its rows")
    func freePlanRefused() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("griptrack-gate-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try RecordingStore(path: directory.appendingPathComponent("g.db").path)
        _ = try store.beginRecording(
            RecordingDraft(uuid: UUID(), startedAt: Date(), device: "d", profile: "p", hand: nil, label: nil)
        ) { _ in .admit }
        let reason = try store.accessStatus(AccessContext(), now: Date()).access.reason
        let client = SyncClient(
            settings: SyncSettings(
                endpoint: SyncEndpoint(host: "/nonexistent", user: "u", database: "d", tls: .disable),
                account: "a", deviceName: "pi"),
            logger: .init(label: "test"))
        await #expect(throws: SyncError.proRequired(reason: reason)) {
            try await client.push(from: store, context: AccessContext())
        }
        #expect(try store.syncStatus().pendingRows == 1)
        #expect(try store.syncStatus().lastError?.contains(reason) == true)
    }

    @Test("a push that pulls the account's grants and sends a recording opens one connection")
    func onePushOneConnection() async throws {
        let cluster = try PostgresCluster()
        let pi = try Pi(cluster: cluster, device: "pi-gym")
        try await pi.client.migrate()
        // The server logs each connection it accepts from now on (new backends read the reloaded setting).
        try await SyncTrustTests.execute(cluster, "ALTER SYSTEM SET log_connections = on")
        try await SyncTrustTests.execute(cluster, "SELECT pg_reload_conf()")
        try await Task.sleep(for: .milliseconds(500))
        func connections() throws -> Int {
            try String(contentsOfFile: cluster.logFile, encoding: .utf8).components(separatedBy: "connection authorized").count - 1
        }
        // With an operator key the push reads the account's grants first, through the same connection.
        let client = SyncClient(
            settings: pi.client.settings, operatorKey: OperatorSigningKey().publicKey, logger: pi.client.logger)
        try pi.record(seconds: 2)
        let before = try connections()
        let summary = try await client.push(from: pi.store, context: AccessContext(bypass: true))
        #expect(summary.recordings == 1)
        #expect(try connections() - before == 1)
    }
}
