// A joinable POSIX thread: the ring's contract is one producer thread and one consumer thread, so the two-thread
// benchmarks need a real thread (not a task).

import Glibc

/// A POSIX thread running one closure; `join()` waits for it.
final class BenchmarkThread {
    private final class Box {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }

    private let thread: pthread_t

    /// Starts `body` on a new thread.
    init(_ body: @escaping @Sendable () -> Void) {
        let context = Unmanaged.passRetained(Box(body)).toOpaque()
        var thread = pthread_t()
        let result = pthread_create(&thread, nil, { context in
            Unmanaged<Box>.fromOpaque(context!).takeRetainedValue().body()
            return nil
        }, context)
        precondition(result == 0, "pthread_create failed: \(result)")
        self.thread = thread
    }

    /// Waits until the thread's closure has returned.
    func join() {
        let result = pthread_join(thread, nil)
        precondition(result == 0, "pthread_join failed: \(result)")
    }
}
