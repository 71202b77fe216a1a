import Foundation

/// Blocking work on a dedicated, named thread: the one way griptrack starts a thread outside GripBlueZ.
///
/// The consumer, socket, recorder and replay loops block in `read(2)` / `poll(2)`; they get their own threads rather
/// than Swift concurrency's cooperative pool, which must never block (on a 2-core machine it has two threads).
package enum NamedThread {
    /// Runs `body` on a new thread named `name` and returns its result once it has finished. Linux keeps at most 15
    /// bytes of a thread's name and refuses a longer one outright, so names are short (`gt-socket`), as `top -H`
    /// shows them.
    package static func run<Result: Sendable>(
        name: String, _ body: @escaping @Sendable () -> Result
    ) async -> Result {
        await withCheckedContinuation { continuation in
            start(name: name) { continuation.resume(returning: body()) }
        }
    }

    /// Starts `body` on a new thread named `name` and returns at once.
    package static func start(name: String, _ body: @escaping @Sendable () -> Void) {
        let thread = Thread {
            // Set from inside: swift-corelibs-foundation applies a name set before `start()` to nothing.
            Thread.current.name = name
            body()
        }
        thread.start()
    }
}
