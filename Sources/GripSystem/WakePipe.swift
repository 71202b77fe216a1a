import Glibc

/// A self-pipe: one thread writes a byte to wake another thread's `poll(2)` (the daemon's socket, shutdown and
/// live-trouble wake-ups, `InterruptSignal`, the MQTT bridge).
///
/// A pipe rather than an eventfd because Swift's Glibc module does not export `<sys/eventfd.h>`; both ends are
/// non-blocking, so a full pipe (a wakeup already pending) never blocks the writer.
package struct WakePipe: Sendable {
    /// The end `poll(2)` watches.
    package let readDescriptor: Int32
    package let writeDescriptor: Int32

    /// - Parameter purpose: What the pipe is for, in the error when it cannot be created.
    /// - Throws: ``SystemCallError`` when the pipe cannot be created (out of descriptors).
    package init(purpose: String) throws(SystemCallError) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw SystemCallError(action: "create the \(purpose) pipe", errno: errno) }
        for end in ends {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        readDescriptor = ends[0]
        writeDescriptor = ends[1]
    }

    /// Makes the read end readable (a no-op when a wakeup is already pending).
    package func signal() {
        var byte: UInt8 = 1
        _ = write(writeDescriptor, &byte, 1)
    }

    /// Empties the pipe so the next `signal()` wakes `poll` again.
    ///
    /// One `read(2)` into a stack buffer per call: a read that returns less than the buffer holds emptied the pipe
    /// (a byte written after it makes the pipe readable again, so it wakes the next `poll`). Reading again until
    /// EAGAIN cost a second system call on every wake-up of the socket and recorder threads.
    /// - Returns: how many bytes (signals) it held.
    @discardableResult
    package func drain() -> Int {
        var buffer: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)
        let size = MemoryLayout.size(ofValue: buffer)
        var total = 0
        while true {
            let count = read(readDescriptor, &buffer, size)
            if count > 0 { total += count }
            if count != size { return total }
        }
    }

    /// Closes both ends.
    package func close() {
        _ = Glibc.close(readDescriptor)
        _ = Glibc.close(writeDescriptor)
    }
}
