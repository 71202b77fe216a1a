import Synchronization

/// A fixed number of slots for work that opens a daemon connection (``DaemonLink``): a caller takes one, waits at
/// most ``patience`` for one to free up, and otherwise fails with ``WebError/busy``, so that a crowd of requests
/// queues briefly and is then refused in words that do not blame the daemon.
final class RequestSlots: Sendable {
    private struct State {
        var free: Int
        var waiters: [(id: Int, continuation: CheckedContinuation<Bool, Never>)] = []
        var nextID = 0
    }

    private let state: Mutex<State>
    /// How long a caller waits for a slot.
    let patience: Duration

    init(count: Int, patience: Duration = .seconds(2)) {
        state = Mutex(State(free: count))
        self.patience = patience
    }

    /// Runs `work` in a slot.
    /// - Throws: ``WebError/busy`` when no slot freed up within ``patience``, else what `work` throws.
    func withSlot<T: Sendable>(_ work: () async throws -> T) async throws -> T {
        guard await acquire() else { throw WebError.busy }
        defer { release() }
        return try await work()
    }

    private func acquire() async -> Bool {
        let id: Int? = state.withLock { state in
            if state.free > 0 {
                state.free -= 1
                return nil
            }
            state.nextID += 1
            return state.nextID
        }
        guard let id else { return true }
        let patience = patience
        let timer = Task { [self] in
            guard (try? await Task.sleep(for: patience)) != nil else { return }
            giveUp(id)
        }
        defer { timer.cancel() }
        return await withCheckedContinuation { continuation in
            let early = state.withLock { state -> Bool? in
                // A slot freed between the check above and now.
                if state.free > 0 {
                    state.free -= 1
                    return true
                }
                state.waiters.append((id, continuation))
                return nil
            }
            if let early { continuation.resume(returning: early) }
        }
    }

    private func giveUp(_ id: Int) {
        let waiter = state.withLock { state -> CheckedContinuation<Bool, Never>? in
            guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
            return state.waiters.remove(at: index).continuation
        }
        waiter?.resume(returning: false)
    }

    private func release() {
        let next = state.withLock { state -> CheckedContinuation<Bool, Never>? in
            guard !state.waiters.isEmpty else {
                state.free += 1
                return nil
            }
            return state.waiters.removeFirst().continuation
        }
        next?.resume(returning: true)
    }
}
