import Foundation
import GripEntitlements
import GripStore
import Logging
import ServiceLifecycle
import Synchronization

/// griptrackd's sync service: pushes the daemon's outbox every `[sync] interval_seconds`, backing off (doubling,
/// at most 5 minutes) while the server is unreachable or the plan is free. It runs on its own task and only reads
/// the store, apart from the short acknowledgement transactions; recording never waits for it.
package final class SyncService: Service, Sendable {
    /// What STATUS reports about sync.
    package struct Snapshot: Sendable, Equatable {
        package var lastAttemptAt: Date?
        package var lastSuccessAt: Date?
        package var lastError: String?
        /// Failures in a row.
        package var failures = 0
        /// Seconds until the next push.
        package var nextDelaySeconds: Double = 0
        /// Outbox rows waiting, as of the start of the push in progress or the end of the last one.
        package var pendingRows = 0
        /// When the push in progress started; `nil` between pushes.
        package var pushingSince: Date?
    }

    private let client: SyncClient
    private let store: RecordingStore
    private let context: AccessContext
    private let interval: Duration
    private let logger: Logger
    private let state = Mutex(Snapshot())
    private let wake = SyncWake()

    /// Creates the service.
    ///
    /// - Parameters:
    ///   - client: Server, account and device.
    ///   - store: The daemon's database.
    ///   - context: Bypass flag and free plan (sync is Pro).
    ///   - interval: `[sync] interval_seconds`.
    ///   - logger: Where push outcomes go.
    package init(client: SyncClient, store: RecordingStore, context: AccessContext, interval: Duration, logger: Logger) {
        self.client = client
        self.store = store
        self.context = context
        self.interval = interval
        self.logger = logger
    }

    /// The latest outcome, for STATUS.
    package var snapshot: Snapshot { state.withLock { $0 } }

    /// Asks for a push now instead of at the end of the interval (a recording was saved), unless the service is
    /// backing off after failures: a server that is down is not asked more often because someone recorded.
    /// Non-blocking; callable from any thread.
    package func pushSoon() {
        guard state.withLock({ $0.failures == 0 }) else { return }
        wake.signal()
    }

    /// Pushes, sleeps, repeats until graceful shutdown.
    package func run() async throws {
        await cancelWhenGracefulShutdown {
            var backoff = SyncBackoff(interval: self.interval)
            while !Task.isCancelled {
                let started = Date()
                self.begin(at: started)
                do throws(SyncError) {
                    let summary = try await self.client.push(from: self.store, context: self.context)
                    backoff.record(success: true)
                    if summary.rows > 0 {
                        self.logger.info("sync pushed", metadata: ["rows": "\(summary.rows)", "samples": "\(summary.samples)"])
                    }
                    self.update(at: started, error: nil, backoff: backoff)
                } catch .interrupted {
                    // Shutting down: the deadline closed the connection; the outbox is as it was.
                    self.state.withLock { $0.pushingSince = nil }
                    break
                } catch {
                    backoff.record(success: false)
                    self.logger.notice("sync failed", metadata: ["error": "\(error)", "retry.seconds": "\(backoff.delay)"])
                    self.update(at: started, error: error.description, backoff: backoff)
                }
                await self.wake.wait(atMost: backoff.delay)
            }
        }
    }

    /// A push starts: STATUS says so, with the rows it found waiting (not the count left by the last push, which
    /// may be long out of date when that push was the daemon's first or the server has been down since).
    private func begin(at date: Date) {
        let pending = try? store.syncStatus().pendingRows
        state.withLock { snapshot in
            snapshot.pushingSince = date
            if let pending { snapshot.pendingRows = pending }
        }
    }

    private func update(at date: Date, error: String?, backoff: SyncBackoff) {
        // Read before taking the lock: STATUS on the socket thread takes it too and must not wait on SQLite.
        let pending = try? store.syncStatus().pendingRows
        state.withLock { snapshot in
            snapshot.lastAttemptAt = date
            snapshot.pushingSince = nil
            if error == nil { snapshot.lastSuccessAt = date }
            snapshot.lastError = error
            snapshot.failures = backoff.failures
            let delay = backoff.delay.components
            snapshot.nextDelaySeconds = Double(delay.seconds) + Double(delay.attoseconds) / 1e18
            if let pending { snapshot.pendingRows = pending }
        }
    }
}
