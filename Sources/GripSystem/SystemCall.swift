import Glibc

/// The one place a system call interrupted by a signal is repeated.
///
/// griptrack installs its signal handlers with `SA_RESTART`, but `poll(2)` and calls on sockets with a timeout are
/// never restarted (signal(7)), and a library or a debugger may install handlers without it. So every blocking or
/// non-blocking call that can fail with `EINTR` goes through `retryingOnInterrupt`, and every `poll(2)` through
/// `poll(_:timeoutMilliseconds:)`; a loop never spells out `errno == EINTR` itself.
package enum SystemCall {
    /// Calls `call` again while it fails with `EINTR`.
    /// - Parameter call: A system call returning a negative value on failure with `errno` set.
    /// - Returns: The first result that is not an `EINTR` failure; `errno` is as that call left it.
    @inlinable
    package static func retryingOnInterrupt<Result: BinaryInteger>(_ call: () -> Result) -> Result {
        while true {
            let result = call()
            if result >= 0 || errno != EINTR { return result }
        }
    }

    /// `poll(2)` over `descriptors`, repeated on `EINTR` with the whole timeout (a signal is rare, and waking late
    /// only delays the caller's own timer).
    /// - Parameters:
    ///   - descriptors: What to wait for; `revents` are set on return.
    ///   - timeoutMilliseconds: -1 waits without a limit.
    /// - Returns: The number of ready descriptors, 0 when the time ran out, or -1 with `errno` set.
    package static func poll(_ descriptors: inout [pollfd], timeoutMilliseconds: Int32) -> Int32 {
        let count = nfds_t(descriptors.count)
        return descriptors.withUnsafeMutableBufferPointer { buffer in
            retryingOnInterrupt { Glibc.poll(buffer.baseAddress, count, timeoutMilliseconds) }
        }
    }
}
