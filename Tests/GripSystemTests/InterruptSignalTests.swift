import Glibc
import Testing

import GripSystem

/// Ctrl-C in `record` and `capture`: a signal must reach the loop's pipe however early it comes, or the command
/// waits forever for a stop that was already asked for.
@Suite("interrupt signal", .serialized)
struct InterruptSignalTests {
    @Test("a signal sent the moment InterruptSignal exists is one byte in its pipe; deinit restores the old action")
    func signalRightAfterInit() throws {
        for number in InterruptSignal.signals {
            var before = sigaction()
            sigaction(number, nil, &before)
            do {
                let interrupt = InterruptSignal()
                // At once: Dispatch signal sources, registered later on Dispatch's own thread, lost such a signal.
                kill(getpid(), number)
                var descriptor = pollfd(fd: interrupt.readDescriptor, events: Int16(POLLIN), revents: 0)
                #expect(poll(&descriptor, 1, 2_000) == 1, "signal \(number) did not reach the pipe")
                #expect(interrupt.drain() == 1)
            }
            var after = sigaction()
            sigaction(number, nil, &after)
            #expect(
                unsafeBitCast(after.__sigaction_handler.sa_handler, to: Int.self)
                    == unsafeBitCast(before.__sigaction_handler.sa_handler, to: Int.self),
                "signal \(number)'s action was not restored")
        }
    }
}
