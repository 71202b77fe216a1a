// A joinable POSIX thread for ring tests. The ring's contract is "one producer thread, one consumer thread", so
// the tests need real threads (not tasks), and pthread_join gives TSan a happens-before edge it understands.

import Glibc
import Synchronization

/// A POSIX thread running one closure; `join()` waits for it.
final class TestThread {
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
            let box = Unmanaged<Box>.fromOpaque(context!).takeRetainedValue()
            box.body()
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

/// A flag one thread sets and another polls.
final class Flag: Sendable {
    private let value = Atomic<Bool>(false)

    var isSet: Bool { value.load(ordering: .acquiring) }

    func set() { value.store(true, ordering: .releasing) }

    /// Polls until the flag is set or `seconds` pass (a generous bound against hangs, not a speed check).
    /// - Returns: Whether the flag was set.
    func wait(upTo seconds: Int) -> Bool {
        Self.poll(upTo: seconds) { isSet }
    }

    /// Polls `condition` every millisecond until it holds or `seconds` pass (a bound against hangs).
    /// - Returns: Whether the condition held.
    static func poll(upTo seconds: Int, _ condition: () -> Bool) -> Bool {
        for _ in 0..<(seconds * 1000) {
            if condition() { return true }
            usleep(1000)
        }
        return condition()
    }
}

/// Sleeps the calling thread, giving another thread the chance to do something it must not do.
func pause(milliseconds: Int) {
    usleep(UInt32(milliseconds * 1000))
}
