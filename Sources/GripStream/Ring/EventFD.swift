// The raw eventfd(2) calls behind the ring's sleep/wake protocol: one thin wrapper per C function (`eventfd`,
// `read`, `write`, `close`), in the style of swift-system's `Internals/Syscalls.swift`.
//
// Why raw calls: the ring must sleep without a timer and be woken by exactly one write on the empty → non-empty
// (or full → not-full) transition. An eventfd is the cheapest kernel object that does this, and it is one fd,
// not two like a pipe.
//
// Why `dlsym`: Swift's `Glibc` module does not include `<sys/eventfd.h>`, and adding a C target just for one
// declaration is not worth it. `eventfd` is looked up once in the already-loaded libc and called through a
// `@convention(c)` pointer, so the call uses the real C ABI (no underscored attributes, no variadic `syscall`).
//
// Errors: `errno` is read immediately after the failing call. `EINTR` is retried. `EBADF`, `EFAULT` and
// `EINVAL` can only mean a bug here or in the ring (a closed descriptor, a short buffer), so they hit a
// precondition; any other errno is thrown to the caller.

import Glibc
import GripSystem

/// An `errno` value returned by a failed system call.
struct SystemErrno: Error, Equatable, CustomStringConvertible {
    /// The raw `errno` value.
    var rawValue: CInt

    var description: String {
        // SAFETY: strerror returns a pointer to a static or thread-local NUL-terminated string that stays valid
        // until the next strerror call on this thread; String(cString:) copies it at once.
        "errno \(rawValue) (\(unsafe String(cString: strerror(rawValue))))"
    }
}

/// A Linux eventfd used as a counter-mode wake-up channel: `signal()` adds 1, `wait()` blocks until the counter is
/// non-zero and resets it to 0.
///
/// - Important: The value does not own the descriptor; whoever created it calls `close()` exactly once, after no
///   thread can be blocked in `wait()` on it.
struct EventFD {
    /// The file descriptor.
    let descriptor: CInt

    private typealias EventFDFunction = @convention(c) (CUnsignedInt, CInt) -> CInt

    /// `eventfd(2)` from libc, resolved once.
    private static let eventfdFunction: EventFDFunction = {
        // SAFETY: a nil handle is RTLD_DEFAULT (glibc defines it as ((void *) 0)): the lookup searches libc,
        // which every Swift process on Linux has loaded. glibc's eventfd has the C signature
        // `int eventfd(unsigned int initval, int flags)`, which is exactly EventFDFunction.
        guard let symbol = unsafe dlsym(nil, "eventfd") else {
            preconditionFailure("EventFD: libc has no eventfd symbol")
        }
        return unsafe unsafeBitCast(symbol, to: EventFDFunction.self)
    }()

    /// Creates a blocking, close-on-exec eventfd with a counter of 0 (`eventfd(0, EFD_CLOEXEC)`).
    ///
    /// - Throws: `SystemErrno` for `EMFILE`, `ENFILE`, `ENODEV` or `ENOMEM`.
    static func make() throws(SystemErrno) -> EventFD {
        // EFD_CLOEXEC is defined by the kernel ABI as O_CLOEXEC; Glibc exports only the latter.
        let fd = eventfdFunction(0, O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            precondition(code != EINVAL, "EventFD: eventfd rejected its flags (errno \(code))")
            throw SystemErrno(rawValue: code)
        }
        return EventFD(descriptor: fd)
    }

    /// Adds 1 to the counter (`write(2)` of an 8-byte 1), waking a thread blocked in `wait()`.
    ///
    /// - Throws: `SystemErrno` for anything but `EINTR` (retried) and bugs (precondition).
    func signal() throws(SystemErrno) {
        var one: UInt64 = 1
        // SAFETY: the pointer addresses the 8 bytes of `one`, alive for the whole closure.
        let written = unsafe withUnsafeBytes(of: &one) { bytes in
            SystemCall.retryingOnInterrupt { unsafe write(descriptor, bytes.baseAddress, 8) }
        }
        if written == 8 { return }
        let code = errno
        precondition(code != EBADF && code != EFAULT && code != EINVAL, "EventFD: write failed with errno \(code)")
        throw SystemErrno(rawValue: code)
    }

    /// Blocks until the counter is non-zero, then resets it to 0 (`read(2)` of 8 bytes).
    ///
    /// - Returns: The counter value before the reset (the number of `signal()`s it absorbed), at least 1.
    /// - Throws: `SystemErrno` for anything but `EINTR` (retried) and bugs (precondition).
    @discardableResult
    func wait() throws(SystemErrno) -> UInt64 {
        var count: UInt64 = 0
        // SAFETY: the pointer addresses the 8 bytes of `count`, alive for the whole closure.
        let got = unsafe withUnsafeMutableBytes(of: &count) { bytes in
            SystemCall.retryingOnInterrupt { unsafe read(descriptor, bytes.baseAddress, 8) }
        }
        if got == 8 { return count }
        let code = errno
        precondition(code != EBADF && code != EFAULT && code != EINVAL, "EventFD: read failed with errno \(code)")
        throw SystemErrno(rawValue: code)
    }

    /// Waits at most `milliseconds` for the counter to become non-zero (`poll(2)`), then resets it like `wait()`.
    ///
    /// - Returns: false when the time ran out first (the counter untouched).
    /// - Throws: `SystemErrno` for anything but `EINTR` (the poll is retried with the whole timeout: a signal here
    ///   is rare, and a late wake-up only delays a drain) and bugs (precondition).
    func wait(milliseconds: Int32) throws(SystemErrno) -> Bool {
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        let ready = SystemCall.retryingOnInterrupt { unsafe poll(&entry, 1, milliseconds) }
        if ready == 0 { return false }
        if ready < 0 {
            let code = errno
            precondition(code != EFAULT && code != EINVAL, "EventFD: poll failed with errno \(code)")
            throw SystemErrno(rawValue: code)
        }
        // Only the waiting thread reads the counter, so after POLLIN this read does not block.
        try wait()
        return true
    }

    /// Closes the descriptor (`close(2)`). `EINTR` is not retried: on Linux the descriptor is released anyway.
    func close() {
        if Glibc.close(descriptor) != 0 {
            let code = errno
            precondition(code != EBADF, "EventFD: close of a descriptor that is not open (errno \(code))")
        }
    }
}
