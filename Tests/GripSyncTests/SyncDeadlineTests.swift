import Foundation
import Glibc
import GripStore
import GripTestSupport
import Logging
import PostgresNIO
import Testing

@testable import GripSync

/// Every wait on the server ends by its deadline (docs/sync.md, "Deadlines"), says what it waited for, and leaves
/// the outbox as it was. The time limit turns a hang (what these cases did before the deadlines) into a failure.
@Suite("Sync deadlines", .serialized, .timeLimit(.minutes(1)))
struct SyncDeadlineTests {
    @Test("a server that completes the startup and then goes silent: the migration times out, the outbox is kept")
    func silentAfterStartup() async throws {
        let fake = try FakePostgresServer(.silentAfterStartup)
        defer { fake.stop() }
        let pi = try Pi(
            endpoint: SyncFixtures.endpoint(fake, tls: .disable), device: "pi-gym", timeouts: SyncFixtures.shortTimeouts)
        try pi.record(seconds: 2)
        let pending = try pi.store.syncStatus().pendingRows

        let started = ContinuousClock.now
        let error = await #expect(throws: SyncError.self) { try await pi.push() }
        // Ends with the deadline's error, not a hang; generous for a loaded machine (the suite's time limit is 1 minute).
        #expect(ContinuousClock.now - started < .seconds(40))
        guard case .timedOut(_, .migration, .seconds(3), _) = error else {
            Issue.record("expected the migration to time out, got \(String(describing: error))")
            return
        }
        #expect(error?.description.contains("accepted the connection but did not answer the migration within 3 s") == true)
        #expect(try pi.store.syncStatus().pendingRows == pending)
        #expect(try pi.store.syncStatus().lastError == error?.description)
    }

    @Test("a server that closes the connection mid-query: the push ends at once, not at its deadline, outbox kept")
    func serverClosesMidQuery() async throws {
        let fake = try FakePostgresServer(.hangUpAfterFirstQuery)
        defer { fake.stop() }
        var timeouts = SyncTimeouts.standard
        timeouts.migration = .seconds(60)
        let pi = try Pi(endpoint: SyncFixtures.endpoint(fake, tls: .disable), device: "pi-gym", timeouts: timeouts)
        try pi.record(seconds: 2)
        let pending = try pi.store.syncStatus().pendingRows
        let started = ContinuousClock.now
        let error = await #expect(throws: SyncError.self) { try await pi.push() }
        let waited = ContinuousClock.now - started
        // The close ends the wait: seconds, not the 60 s deadline.
        #expect(waited < .seconds(10), "waited \(waited)")
        if case .timedOut = error { Issue.record("waited for the deadline: \(String(describing: error))") }
        #expect(try pi.store.syncStatus().pendingRows == pending)
    }

    @Test("a server that sends random bytes after the startup: the push fails within its deadline, outbox kept")
    func garbageAfterStartup() async throws {
        var generator = SplitMix(seed: 27)
        let garbage = (0..<4096).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
        let fake = try FakePostgresServer(.garbageAfterStartup(garbage))
        defer { fake.stop() }
        let pi = try Pi(
            endpoint: SyncFixtures.endpoint(fake, tls: .disable), device: "pi-gym", timeouts: SyncFixtures.shortTimeouts)
        try pi.record(seconds: 2)
        let pending = try pi.store.syncStatus().pendingRows

        let started = ContinuousClock.now
        let error = await #expect(throws: SyncError.self) { try await pi.push() }
        // Ends with the deadline's error, not a hang; generous for a loaded machine (the suite's time limit is 1 minute).
        #expect(ContinuousClock.now - started < .seconds(40))
        #expect(try pi.store.syncStatus().pendingRows == pending)
        let text = try #require(error?.description)
        #expect(!text.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }, "\(text)")
    }

    @Test("another session holds griptrack_schema locked: the server's lock timeout ends the migration, outbox kept")
    func schemaLockedByAnotherSession() async throws {
        let cluster = try PostgresCluster()
        // The server's 1 s lock timeout must answer first; the client's own deadlines get room so that a loaded test
        // machine cannot end the wait before it (a different, also correct, error). Room means far more than the
        // server's answer takes: the task that reads the answer needs a cooperative thread, two on the CI machine,
        // shared with the whole parallel suite (a fresh-clone run saw a 10 s deadline win while the CLI tests still
        // waited for their processes on those threads; `CLIRunner` now waits off the pool).
        var timeouts = SyncFixtures.shortTimeouts
        timeouts.connect = .seconds(30)
        timeouts.migration = .seconds(30)
        let pi = try Pi(cluster: cluster, device: "pi-gym", timeouts: timeouts)
        try await pi.client.migrate()
        try pi.record(seconds: 2)
        let pending = try pi.store.syncStatus().pendingRows

        let holder = try await Self.rawConnection(cluster)
        try await holder.query("BEGIN", logger: Self.logger)
        try await holder.query("LOCK TABLE griptrack_schema IN ACCESS EXCLUSIVE MODE", logger: Self.logger)
        let started = ContinuousClock.now
        let error = await #expect(throws: SyncError.self) { try await pi.push() }
        // Ends with the deadline's error, not a hang; generous for a loaded machine (the suite's time limit is 1 minute).
        #expect(ContinuousClock.now - started < .seconds(40))
        guard case .timedOut(_, .migration, _, let detail) = error else {
            Issue.record("expected the migration to time out, got \(String(describing: error))")
            try await holder.close()
            return
        }
        #expect(detail?.contains("another session holds a lock") == true, "\(String(describing: detail))")
        #expect(try pi.store.syncStatus().pendingRows == pending)

        try await holder.query("ROLLBACK", logger: Self.logger)
        try await holder.close()
        try await pi.push()
        #expect(try pi.store.syncStatus().pendingRows == 0)
    }

    /// How the server goes away under a waiting batch.
    enum ServerEnd: String, CaseIterable, CustomTestStringConvertible {
        case restart = "pg_ctl restart -m fast"
        case postmasterKilled = "the postmaster SIGKILLed (its backends exit, closing the connection)"
        var testDescription: String { rawValue }
    }

    @Test("the server goes away while a batch waits on a lock: the push ends, a retry completes", arguments: ServerEnd.allCases)
    func serverRestartedMidPush(_ end: ServerEnd) async throws {
        let cluster = try PostgresCluster()
        var timeouts = SyncFixtures.shortTimeouts
        timeouts.lock = .seconds(30)  // the batch waits on the lock until the restart, not the server's timeout
        // Reaching the batch is not what this test is about: under a full parallel test run, connecting and the
        // schema check can take longer than the short deadlines, and the push then failed before it ever waited.
        // The batch's own deadline stays well below the time the test allows after the restart.
        timeouts.connect = .seconds(20)
        timeouts.migration = .seconds(20)
        timeouts.batch = .seconds(10)
        let pi = try Pi(cluster: cluster, device: "pi-gym", batchSize: 2, timeouts: timeouts)
        try pi.record(seconds: 2)
        try await pi.push()
        for minute in 1..<6 { try pi.record(seconds: 20, minutes: minute * 10) }
        let pending = try pi.store.syncStatus().pendingRows

        // Another session holds this device's row, which every batch updates first.
        let holder = try await Self.rawConnection(cluster)
        try await holder.query("BEGIN", logger: Self.logger)
        try await holder.query("SELECT * FROM devices FOR UPDATE", logger: Self.logger)
        let started = ContinuousClock.now
        let push = Task { () -> SyncError? in
            do throws(SyncError) {
                try await pi.push()
                return nil
            } catch {
                return error
            }
        }
        var waiting = false
        for _ in 0..<400 where !waiting {
            try await Task.sleep(for: .milliseconds(50))
            // A backend reads pg_stat_activity once per transaction and the holder's stays open: without clearing
            // that snapshot, a first look taken before the batch began to wait would be the only one.
            try await holder.query("SELECT pg_stat_clear_snapshot()", logger: Self.logger)
            let rows = try await holder.query(
                "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'", logger: Self.logger)
            for try await count in rows.decode(Int64.self) { waiting = count > 0 }
        }
        if !waiting {
            // Closed first: PostgresNIO traps on a connection dropped open, which would end the whole test run.
            try? await holder.close()
            Issue.record("the batch never waited on the lock; the push ended with \(String(describing: await push.value))")
            return
        }
        let restarted = ContinuousClock.now
        switch end {
        case .restart:
            try cluster.restart()
            try? await holder.close()
        case .postmasterKilled:
            let pidFile = try String(contentsOfFile: cluster.dataDirectory + "/postmaster.pid", encoding: .utf8)
            let pid = try #require(pid_t(pidFile.split(separator: "\n").first ?? ""))
            #expect(kill(pid, SIGKILL) == 0)
        }
        let error = await push.value
        switch end {
        case .restart:
            // Ended by the restart or, at the latest, by the batch's deadline: never left waiting.
            #expect(ContinuousClock.now - restarted < .seconds(25))
        case .postmasterKilled:
            // The waiting backend exits when its postmaster dies, closing the connection: the push sees the close
            // and ends then, well before the batch's 10 s deadline.
            #expect(ContinuousClock.now - restarted < .seconds(6), "waited \(ContinuousClock.now - restarted)")
            if case .timedOut? = error { Issue.record("waited for the deadline: \(String(describing: error))") }
            try? await holder.close()
            // The dead postmaster's backends are gone once they notice; start a new server over the same files.
            var started = false
            for _ in 0..<20 where !started {
                started = (try? cluster.start()) != nil
                if !started { try await Task.sleep(for: .milliseconds(500)) }
            }
            #expect(started, "the server did not start again after its postmaster was killed")
        }
        #expect(restarted - started < .seconds(21))
        #expect(error != nil, "the push cannot have committed through a held lock and a restart")
        #expect(try pi.store.syncStatus().pendingRows == pending)

        try await pi.push()
        #expect(try pi.store.syncStatus().pendingRows == 0)
        let local = try SyncFixtures.localChunks(pi.store)
        let server = try await pi.client.serverChunks()
        #expect(SyncFixtures.checksum(server) == SyncFixtures.checksum(local))
        #expect(try await pi.client.count("SELECT count(*) FROM recordings") == 6)
    }

    static let logger = Logger(label: "griptrack.sync.tests")

    /// A connection of its own to the cluster, outside the sync client (another session).
    static func rawConnection(_ cluster: PostgresCluster) async throws -> PostgresConnection {
        try await PostgresConnection.connect(
            configuration: .init(
                unixSocketPath: cluster.directory + "/.s.PGSQL.\(PostgresCluster.port)", username: PostgresCluster.user,
                password: nil, database: "postgres"),
            id: 9, logger: logger)
    }
}

/// A small seeded generator for test bytes.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
