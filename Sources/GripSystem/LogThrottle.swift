import Glibc
import Synchronization

/// Keeps a repeated event to one log line per key and interval, so that a flood of refusals (a client that keeps
/// sending bad requests, a broker's stream of unknown commands) costs a line a minute, not a line an event.
///
/// The first event of a key in each interval is logged, with how many events of that key were not logged in the
/// interval before; the rest are counted. O(1) per event; at most `maxKeys` keys per interval are told apart (past
/// that they share one key), and each new interval starts a new table.
package final class LogThrottle: Sendable {
    private struct Table {
        var interval: Int64 = .min
        var current: [String: Int] = [:]
        var previous: [String: Int] = [:]
    }

    private let table = Mutex(Table())
    /// The interval, in seconds.
    package let seconds: Double
    /// The most keys told apart in one interval.
    package let maxKeys: Int

    /// - Parameters:
    ///   - seconds: The interval.
    ///   - maxKeys: The most keys told apart in one interval.
    package init(seconds: Double = 60, maxKeys: Int = 1_000) {
        self.seconds = seconds
        self.maxKeys = maxKeys
    }

    /// Seconds on the monotonic clock (`CLOCK_MONOTONIC`), unaffected by steps of the wall clock.
    package static func monotonicSeconds() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    /// Counts an event of `key` at `now` (seconds on any one clock; the monotonic one unless a test passes its own).
    ///
    /// - Returns: `nil` to stay quiet, else the number of events of this key that were not logged since its last
    ///   line (0 for the first).
    package func admit(_ key: String, now: Double = LogThrottle.monotonicSeconds()) -> Int? {
        table.withLock { table -> Int? in
            let interval = now.isFinite ? Int64(max(min(now / seconds, 1e15), -1e15).rounded(.down)) : 0
            if interval != table.interval {
                table.previous = interval == table.interval + 1 ? table.current : [:]
                table.current = [:]
                table.interval = interval
            }
            let key = table.current[key] != nil || table.current.count < maxKeys - 1 ? key : "(other)"
            if let seen = table.current[key] {
                table.current[key] = seen + 1
                return nil
            }
            table.current[key] = 1
            // Events of the interval before that were counted but not logged (its first one was).
            return max(0, (table.previous[key] ?? 1) - 1)
        }
    }
}
