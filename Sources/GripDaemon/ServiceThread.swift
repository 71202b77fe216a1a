import Foundation

/// Runs blocking work on a dedicated thread and awaits its end.
///
/// The consumer loop and the socket loop block in `read(2)` / `poll(2)`; they get their own threads rather than
/// Swift concurrency's cooperative pool, which must never block.
enum ServiceThread {
    /// Starts `body` on a new named thread and returns when it has finished. Linux keeps at most 15 bytes of a
    /// thread's name and refuses a longer one outright, so names are short (`gt-socket`), as `top -H` shows them.
    static func run(name: String, _ body: @escaping @Sendable () -> Void) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let thread = Thread {
                // Set from inside: swift-corelibs-foundation applies a name set before `start()` to nothing.
                Thread.current.name = name
                body()
                continuation.resume()
            }
            thread.start()
        }
    }
}

/// A one-way latch a thread can wait on: closed until `open()`.
final class StartGate: Sendable {
    private let condition = NSCondition()
    // SAFETY: read and written only while holding `condition`.
    private nonisolated(unsafe) var isOpen = false

    init(open: Bool) { isOpen = open }

    /// Opens the gate for every current and future waiter.
    func open() {
        condition.lock()
        isOpen = true
        condition.broadcast()
        condition.unlock()
    }

    /// Blocks the calling thread until the gate is open.
    func wait() {
        condition.lock()
        while !isOpen { condition.wait() }
        condition.unlock()
    }
}
