import Foundation

/// Runs blocking work (a process wait, a `recv` with a timeout) on its own thread and awaits it.
///
/// Swift's cooperative pool has one thread per core, two on the CI machine. A test that blocks one of them
/// starves whatever else needs the pool at that moment: an in-process daemon starting its services, a web
/// server's handlers, a sync client racing its deadline. Blocking work in an async test goes through here.
/// - Parameter body: The blocking work.
/// - Returns: What `body` returns.
public func offPool<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: body()) }.start()
    }
}

/// Runs blocking work that may throw on its own thread and awaits it (see the non-throwing form).
/// - Parameter body: The blocking work.
/// - Returns: What `body` returns.
/// - Throws: What `body` throws.
public func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}
