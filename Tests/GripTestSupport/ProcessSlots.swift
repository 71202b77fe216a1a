/// At most a few `griptrack` processes at a time across the whole parallel test run.
///
/// Swift Testing runs every test at once that is not waiting; since `CLIRunner` waits for its process off the
/// cooperative pool, nothing else bounds how many CLI processes run together, and on the two-core CI machine a few
/// dozen of them (each replaying or importing) starve the PostgreSQL servers and in-process daemons of other tests
/// past their deadlines. A waiting test holds no thread here: it is suspended until a slot is free.
actor ProcessSlots {
    static let shared = ProcessSlots(count: 3)

    private var free: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(count: Int) { free = count }

    /// Runs `body` once a slot is free, and frees it after.
    func withSlot<T: Sendable>(_ body: @Sendable () async throws -> T) async rethrows -> T {
        if free > 0 {
            free -= 1
        } else {
            await withCheckedContinuation { waiting.append($0) }
        }
        defer {
            if waiting.isEmpty { free += 1 } else { waiting.removeFirst().resume() }
        }
        return try await body()
    }
}
