// A joinable POSIX thread for ring tests (GripStreamTests and the ring-stress runner). The ring's contract is "one producer thread, one consumer thread", so
// the tests need real threads (not tasks), and pthread_join gives TSan a happens-before edge it understands.

import Glibc
import Synchronization

/// A POSIX thread running one closure; `join()` waits for it.
public final class TestThread {
    private final class Box {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }

    private let thread: pthread_t

    /// Starts `body` on a new thread.
    public init(_ body: @escaping @Sendable () -> Void) {
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
    public func join() {
        let result = pthread_join(thread, nil)
        precondition(result == 0, "pthread_join failed: \(result)")
    }
}

/// A flag one thread sets and another polls.
public final class Flag: Sendable {
    private let value = Atomic<Bool>(false)

    public var isSet: Bool { value.load(ordering: .acquiring) }

    public func set() { value.store(true, ordering: .releasing) }

    public init() {}

    /// Polls until the flag is set or `seconds` pass (a generous bound against hangs, not a speed check).
    /// - Returns: Whether the flag was set.
    public func wait(upTo seconds: Int) -> Bool {
        Self.poll(upTo: seconds) { isSet }
    }

    /// Polls `condition` every millisecond until it holds or `seconds` pass (a bound against hangs).
    /// - Returns: Whether the condition held.
    public static func poll(upTo seconds: Int, _ condition: () -> Bool) -> Bool {
        for _ in 0..<(seconds * 1000) {
            if condition() { return true }
            usleep(1000)
        }
        return condition()
    }
}

/// Sleeps the calling thread, giving another thread the chance to do something it must not do.
public func pause(milliseconds: Int) {
    usleep(UInt32(milliseconds * 1000))
}
