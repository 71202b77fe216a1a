/// The recorder's view of a store that stopped accepting writes (a full disk, a read-only or vanished database,
/// SQLITE_BUSY past its timeout): a state with a retry time, not a loop.
///
/// While it lasts the recorder holds the open recording's samples in memory (``GripStore/ChunkWriter/hold(_:now:)``,
/// bounded), tries one commit per retry, and says so once: one log line, one RECORDER event and STATUS
/// `recorder.problem` on entering the state, one each on leaving it. Retries back off from 1 s to 16 s, so a full disk
/// costs at most one wake-up per second and almost no CPU, and space coming back is noticed within 16 s.
struct StorageTrouble: Equatable {
    /// The store's error, as the user should read it.
    private(set) var problem: String
    /// When to try the next commit.
    private(set) var retryAt: ContinuousClock.Instant
    /// The wait before the retry after a failed one.
    private(set) var backoff: Duration
    /// Failed attempts since the trouble began.
    private(set) var failures = 1

    static let firstRetry: Duration = .seconds(1)
    static let longestRetry: Duration = .seconds(16)

    /// A store that just failed.
    init(problem: String, now: ContinuousClock.Instant) {
        self.problem = problem
        backoff = Self.firstRetry
        retryAt = now + backoff
    }

    /// Whether a retry is due.
    func isDue(_ now: ContinuousClock.Instant) -> Bool { now >= retryAt }

    /// Another failed retry: the wait doubles up to ``longestRetry``. Returns whether the problem's text changed
    /// (worth one more log line).
    mutating func failedAgain(problem: String, now: ContinuousClock.Instant) -> Bool {
        failures += 1
        backoff = min(backoff * 2, Self.longestRetry)
        retryAt = now + backoff
        defer { self.problem = problem }
        return problem != self.problem
    }
}
