import Foundation
import GripEntitlements
import GripStore
import GripTestSupport
import Logging
import Testing

@testable import GripSync

/// griptrackd's sync service against a real server: pushes on its interval, backs off while the server is down,
/// and catches up once it is back.
@Suite(
    "Sync service", .serialized,
    .enabled(if: PostgresCluster.shouldRun, "PostgreSQL 15 is not installed: run scripts/setup"))
struct SyncServiceTests {
    @Test("pushes every interval, fails and backs off while the server is down, catches up after")
    func pushesAndRecovers() async throws {
        let cluster = try PostgresCluster()
        let pi = try Pi(cluster: cluster, device: "pi-daemon")
        let (service, task) = Self.start(pi, interval: .milliseconds(200))
        defer { task.cancel() }

        try pi.record(seconds: 2, minutes: 0)
        #expect(try await Self.waitFor { try await pi.client.count("SELECT count(*) FROM recordings") == 1 })
        // The server commits before the service acknowledges the outbox and updates its snapshot.
        #expect(try await Self.waitFor { service.snapshot.lastSuccessAt != nil })

        try cluster.stop()
        try pi.record(seconds: 2, minutes: 5)
        #expect(try await Self.waitFor { service.snapshot.failures >= 2 })
        #expect(service.snapshot.nextDelaySeconds >= 0.8)
        #expect(service.snapshot.lastError?.contains("PostgreSQL") == true)

        try cluster.start()
        #expect(try await Self.waitFor { try await pi.client.count("SELECT count(*) FROM recordings") == 2 })
        #expect(try await Self.waitFor { try pi.store.syncStatus().pendingRows == 0 })
        task.cancel()
        _ = await task.result
    }

    @Test("a saved recording is pushed when asked, long before the interval; a failing service is not hurried")
    func pushSoon() async throws {
        let cluster = try PostgresCluster()
        let pi = try Pi(cluster: cluster, device: "pi-daemon")
        let (service, task) = Self.start(pi, interval: .seconds(600))
        defer { task.cancel() }
        #expect(try await Self.waitFor { service.snapshot.lastAttemptAt != nil })

        try pi.record(seconds: 2, minutes: 0)
        service.pushSoon()
        #expect(try await Self.waitFor { try await pi.client.count("SELECT count(*) FROM recordings") == 1 })

        try cluster.stop()
        try pi.record(seconds: 2, minutes: 5)
        service.pushSoon()
        #expect(try await Self.waitFor { service.snapshot.failures == 1 })
        let failedAt = service.snapshot.lastAttemptAt
        service.pushSoon()  // backing off: ignored
        try await Task.sleep(for: .milliseconds(500))
        #expect(service.snapshot.lastAttemptAt == failedAt)
        #expect(service.snapshot.failures == 1)
        task.cancel()
        _ = await task.result
    }

    /// A running service for `pi`'s store with Pro by the bypass flag; the caller cancels the task.
    static func start(_ pi: Pi, interval: Duration) -> (SyncService, Task<Void, any Error>) {
        let service = SyncService(
            client: pi.client, store: pi.store, context: AccessContext(bypass: true), interval: interval,
            logger: Logger(label: "griptrack.sync.tests"))
        return (service, Task { try await service.run() })
    }

        /// Polls `condition` every 100 ms for up to 15 s.
    static func waitFor(_ condition: () async throws -> Bool) async throws -> Bool {
        for _ in 0..<150 {
            if (try? await condition()) == true { return true }
            try await Task.sleep(for: .milliseconds(100))
        }
        return false
    }
}

/// griptrackd's sync service against a server that never answers: STATUS tells the truth meanwhile, and shutdown
/// does not wait for the server.
@Suite("Sync service against a stuck server", .timeLimit(.minutes(1)))
struct SyncServiceStuckServerTests {
    @Test("while a push hangs, STATUS shows the rows waiting and the push in progress; cancelling ends it at once")
    func shutdownDuringStuckPush() async throws {
        let fake = try FakePostgresServer(.silentAfterStartup)
        defer { fake.stop() }
        // Deadlines far beyond the test: only the cancellation (SIGTERM's graceful shutdown) can end the push.
        let pi = try Pi(
            endpoint: SyncFixtures.endpoint(fake, tls: .disable), device: "pi-daemon",
            timeouts: SyncTimeouts(
                connect: .seconds(600), migration: .seconds(600), batch: .seconds(600), read: .seconds(600),
                lock: .seconds(600)))
        for minute in 0..<3 { try pi.record(seconds: 1, minutes: minute) }
        let pending = try pi.store.syncStatus().pendingRows
        let (service, task) = SyncServiceTests.start(pi, interval: .seconds(1))
        defer { task.cancel() }

        #expect(try await SyncServiceTests.waitFor { service.snapshot.pushingSince != nil })
        #expect(service.snapshot.pendingRows == pending)
        let cancelled = ContinuousClock.now
        task.cancel()
        _ = await task.result
        // A bound against waiting for the 600 s deadlines, not a speed check: with two CI runs on the machine's two
        // cores the cancellation took 5.5 s.
        #expect(ContinuousClock.now - cancelled < .seconds(30))
        #expect(try pi.store.syncStatus().pendingRows == pending)
        #expect(service.snapshot.pushingSince == nil)
    }
}
