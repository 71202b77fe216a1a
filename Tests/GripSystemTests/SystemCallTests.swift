import Foundation
import Glibc
import Synchronization
import Testing

import GripSystem

/// A signal that lands while a daemon thread sleeps in poll(2) must not end that thread's loop or lose its wake-up.
@Suite("system calls interrupted by a signal", .serialized)
struct SystemCallTests {
    @Test("EINTR is repeated; any other failure is returned at once with its errno")
    func retriesOnlyInterruptions() {
        var calls = 0
        let result = SystemCall.retryingOnInterrupt { () -> Int in
            calls += 1
            if calls < 3 {
                errno = EINTR
                return -1
            }
            return 42
        }
        #expect(result == 42)
        #expect(calls == 3)

        calls = 0
        let failed = SystemCall.retryingOnInterrupt { () -> Int32 in
            calls += 1
            errno = EAGAIN
            return -1
        }
        #expect(failed == -1)
        #expect(errno == EAGAIN)
        #expect(calls == 1)
    }

    @Test("a poll interrupted by a real signal (no SA_RESTART) goes on waiting and sees the byte written after it")
    func pollSurvivesASignal() throws {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in }
        sigemptyset(&action.sa_mask)
        action.sa_flags = 0  // poll(2) is never restarted anyway; this makes read(2) and friends fail too
        var previous = sigaction()
        #expect(sigaction(SIGUSR1, &action, &previous) == 0)
        defer { sigaction(SIGUSR1, &previous, nil) }

        let wake = try WakePipe(purpose: "test")
        defer { wake.close() }
        final class Shared: Sendable {
            let polled = Mutex<Int32?>(nil)
            let thread = Mutex<pthread_t?>(nil)
        }
        let shared = Shared()
        let thread = Thread {
            shared.thread.withLock { $0 = pthread_self() }
            var descriptors = [pollfd(fd: wake.readDescriptor, events: Int16(POLLIN), revents: 0)]
            let ready = SystemCall.poll(&descriptors, timeoutMilliseconds: 10_000)
            shared.polled.withLock { $0 = ready }
        }
        thread.start()
        while shared.thread.withLock({ $0 }) == nil { usleep(1_000) }
        usleep(100_000)  // inside poll by now
        for _ in 0..<3 {
            pthread_kill(shared.thread.withLock { $0 }!, SIGUSR1)
            usleep(20_000)
        }
        #expect(shared.polled.withLock { $0 } == nil, "the signal ended the wait")
        wake.signal()
        let deadline = Date().addingTimeInterval(5)
        while shared.polled.withLock({ $0 }) == nil, Date() < deadline { usleep(1_000) }
        #expect(shared.polled.withLock { $0 } == 1)
    }
}
