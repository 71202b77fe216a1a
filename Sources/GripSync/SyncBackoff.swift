/// When the sync service tries again: every `interval` while pushes succeed; after failures the wait doubles from
/// `interval` up to `ceiling` (5 minutes), so a Pi offline for weeks tries every 5 minutes and costs nothing else.
package struct SyncBackoff: Sendable, Equatable {
    /// The wait after a success.
    package var interval: Duration
    /// The longest wait.
    package var ceiling: Duration
    /// Failures in a row.
    package private(set) var failures = 0

    /// Creates a backoff.
    /// - Parameters:
    ///   - interval: `[sync] interval_seconds`.
    ///   - ceiling: 5 minutes by default.
    package init(interval: Duration, ceiling: Duration = .seconds(300)) {
        self.interval = interval
        self.ceiling = ceiling
    }

    /// The wait before the next push.
    package var delay: Duration {
        guard failures > 0 else { return min(interval, ceiling) }
        var wait = interval
        for _ in 0..<min(failures, 32) where wait < ceiling { wait = wait * 2 }
        return min(wait, ceiling)
    }

    /// Records a push's outcome.
    package mutating func record(success: Bool) {
        failures = success ? 0 : failures + 1
    }
}
