import Foundation

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
