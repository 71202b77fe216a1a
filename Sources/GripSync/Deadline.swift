import Synchronization

/// One network wait with a deadline that does not depend on the wait noticing it (docs/sync.md, "Deadlines").
///
/// Why not a task group that races the work against a sleep: a group returns only once every child has returned,
/// and a child stuck in a postgres-nio read (a server that went silent, or whose socket closed without the pending
/// read being failed) never returns, so the group never does either. Here the work runs on a task of its own, and
/// the caller is resumed by whichever comes first: the work's result, the deadline, or the caller's cancellation
/// (griptrackd's SIGTERM). On the deadline and on cancellation `abandon` runs first (the callers close the
/// connection, which fails the stuck read where it can); a work task that still never ends is left behind holding
/// only a closed connection, and what it yields late is handed to `discard`.
enum Deadline {
    /// The deadline passed before the work finished.
    struct Expired: Error {}
    /// What the work waits on ended first (its connection closed): waiting longer can bring nothing.
    struct PeerClosed: Error {}

    /// Runs `work` until it finishes, `limit` passes, or the calling task is cancelled.
    ///
    /// - Parameters:
    ///   - limit: How long the work may take.
    ///   - abandon: Called once when the deadline passes or the caller is cancelled, before the caller resumes.
    ///   - discard: Called with a result the work produced after the caller had stopped waiting for it.
    ///   - peerClosed: Registers a callback to run when what the work waits on closes (the connection's close
    ///     future): postgres-nio does not always fail a query whose channel closed after some of its replies, so
    ///     the close itself ends the wait.
    ///   - work: The wait.
    /// - Returns: The work's result.
    /// - Throws: ``Expired`` after `limit`, ``PeerClosed`` when the peer closed first, `CancellationError` when the
    ///   caller was cancelled, else the work's error.
    static func run<T: Sendable>(
        within limit: Duration,
        abandon: @escaping @Sendable () -> Void,
        discard: @escaping @Sendable (T) async -> Void = { _ in },
        peerClosed: ((@escaping @Sendable () -> Void) -> Void)? = nil,
        _ work: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        let race = OneShot<T>()
        let worker = Task {
            let result: Result<T, any Error>
            do {
                result = .success(try await work())
            } catch {
                result = .failure(error)
            }
            if !race.finish(result), case .success(let late) = result { await discard(late) }
        }
        let timer = Task {
            do {
                try await Task.sleep(for: limit)
            } catch {
                return  // the work finished first
            }
            if race.finish(.failure(Expired())) {
                abandon()
                worker.cancel()
            }
        }
        defer { timer.cancel() }
        peerClosed? {
            // A work that ended by itself has already won; a close after that changes nothing.
            if race.finish(.failure(PeerClosed())) { worker.cancel() }
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in race.install(continuation) }
        } onCancel: {
            if race.finish(.failure(CancellationError())) {
                abandon()
                worker.cancel()
            }
        }
    }
}

/// The caller's continuation, resumed exactly once by the first of work, deadline and cancellation.
private final class OneShot<T: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<T, any Error>?
        /// The outcome, when it came before the caller installed its continuation.
        var early: Result<T, any Error>?
        var finished = false
    }

    private let state = Mutex(State())

    /// The caller's continuation; resumed at once when the outcome is already known.
    func install(_ continuation: CheckedContinuation<T, any Error>) {
        let early = state.withLock { state -> Result<T, any Error>? in
            guard let early = state.early else {
                state.continuation = continuation
                return nil
            }
            state.early = nil
            return early
        }
        if let early { continuation.resume(with: early) }
    }

    /// Settles the outcome. Returns false when another outcome came first (this one is then dropped).
    @discardableResult
    func finish(_ result: Result<T, any Error>) -> Bool {
        let (won, continuation) = state.withLock { state -> (Bool, CheckedContinuation<T, any Error>?) in
            guard !state.finished else { return (false, nil) }
            state.finished = true
            guard let continuation = state.continuation else {
                state.early = result
                return (true, nil)
            }
            state.continuation = nil
            return (true, continuation)
        }
        continuation?.resume(with: result)
        return won
    }
}
