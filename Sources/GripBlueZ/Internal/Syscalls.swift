// Raw system calls for the D-Bus loop thread and the AcquireNotify socket: one thin wrapper each, errno read at
// once (swift-system's Syscalls.swift style). EBADF/EFAULT mean a bug here and trap; the rest are returned.
//
// Invariants: descriptors passed in are owned by the caller and open; buffers are owned by the caller and valid for
// the call.

import Glibc

enum Clock {
    /// `clock_gettime(CLOCK_REALTIME)` in nanoseconds: the time base of `SO_TIMESTAMPNS` stamps.
    static func realtimeNanos() -> Int64 {
        var now = timespec()
        unsafe clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }

    /// `clock_gettime(CLOCK_MONOTONIC)` in microseconds. The time base of every notification's `hostMicros`.
    // HOT PATH: vDSO call, no allocation.
    static func monotonicMicros() -> Int64 {
        var now = timespec()
        unsafe clock_gettime(CLOCK_MONOTONIC, &now)
        return Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1_000
    }
}

enum Syscall {
    /// `pipe`, then `fcntl` O_NONBLOCK + FD_CLOEXEC on both ends: (read end, write end), the loop's wake-up channel.
    static func wakePipe() -> (read: Int32, write: Int32)? {
        var fds: [Int32] = [-1, -1]
        let result = unsafe fds.withUnsafeMutableBufferPointer { unsafe pipe($0.baseAddress) }
        guard result == 0 else { return nil }
        makeNonBlockingCloseOnExec(fds[0])
        makeNonBlockingCloseOnExec(fds[1])
        return (fds[0], fds[1])
    }

    /// `write(fd, &byte, 1)`; a full pipe already means "wake up".
    static func signalWakePipe(_ fd: Int32) {
        var byte: UInt8 = 1
        let written = unsafe write(fd, &byte, 1)
        precondition(written == 1 || errno == EAGAIN || errno == EINTR, "wake pipe write failed: errno \(errno)")
    }

    /// `read(fd, buffer, 32)` until a read returns less than 32 bytes: the pipe was empty then (one system call for
    /// the usual single wake-up byte, not a second one that only finds EAGAIN).
    static func drainWakePipe(_ fd: Int32) {
        var buffer: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        while unsafe read(fd, &buffer, 32) == 32 {}
    }

    /// `poll(fds, n, timeout)`; EINTR is reported as zero ready descriptors.
    static func poll(_ fds: inout [pollfd], timeoutMilliseconds: Int32) -> Int32 {
        let count = nfds_t(fds.count)
        let ready = unsafe fds.withUnsafeMutableBufferPointer { unsafe Glibc.poll($0.baseAddress, count, timeoutMilliseconds) }
        if ready < 0 {
            precondition(errno == EINTR || errno == EAGAIN, "poll failed: errno \(errno)")
            return 0
        }
        return ready
    }

    /// `poll(fd, 0 ms)`: whether the peer hung up (or the descriptor failed).
    static func hasHungUp(_ fd: Int32) -> Bool {
        var entry = pollfd(fd: fd, events: 0, revents: 0)
        _ = unsafe Glibc.poll(&entry, 1, 0)
        return entry.revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0
    }

    /// `recv(fd, buffer, count, MSG_DONTWAIT)`: bytes read (0 = empty datagram or hang-up), nil when it would block
    /// or failed (`errno` in `lastError`).
    // HOT PATH: one syscall, no allocation.
    static func receive(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) -> (count: Int?, errno: Int32) {
        let count = unsafe recv(fd, buffer.baseAddress, buffer.count, Int32(MSG_DONTWAIT))
        if count < 0 { return (nil, errno) }
        return (count, 0)
    }

    /// `setsockopt(SO_TIMESTAMPNS)`: the kernel stamps each datagram with its arrival time (CLOCK_REALTIME), read
    /// back by `receiveStamped`. False when refused. Glibc's `SO_TIMESTAMPNS` is a macro Swift cannot import; 35 is
    /// `SO_TIMESTAMPNS_OLD` of asm-generic/socket.h (x86, Arm, RISC-V), whose payload is a native `timespec` on 64-bit
    /// systems. 32-bit systems read on arrival instead (see `NotificationPacing`).
    static func enableReceiveTimestamps(_ fd: Int32) -> Bool {
        #if _pointerBitWidth(_64)
        var on: Int32 = 1
        return unsafe setsockopt(fd, SOL_SOCKET, timestampOption, &on, socklen_t(MemoryLayout<Int32>.size)) == 0
        #else
        return false
        #endif
    }

    static let timestampOption: Int32 = 35

    /// `recvmsg(fd, MSG_DONTWAIT)` into `buffer`, with the `SO_TIMESTAMPNS` control message into `control`: bytes
    /// read (nil when it would block or failed, `errno` returned) and the arrival time in nanoseconds since the epoch
    /// (nil without a stamp).
    // HOT PATH (paced drain): one syscall, no allocation.
    static func receiveStamped(
        _ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, control: UnsafeMutableRawBufferPointer
    ) -> (count: Int?, errno: Int32, realtimeNanos: Int64?) {
        var vector = unsafe iovec(iov_base: buffer.baseAddress, iov_len: buffer.count)
        var header = unsafe msghdr()
        unsafe header.msg_control = control.baseAddress
        unsafe header.msg_controllen = control.count
        let count = unsafe withUnsafeMutablePointer(to: &vector) { vectorPointer in
            unsafe header.msg_iov = vectorPointer
            unsafe header.msg_iovlen = 1
            return unsafe recvmsg(fd, &header, Int32(MSG_DONTWAIT))
        }
        if count < 0 { return (nil, errno, nil) }
        // Walk the control messages (struct cmsghdr: size_t length, int level, int type, then the data, each
        // message padded to 8 bytes): CMSG_FIRSTHDR/CMSG_NXTHDR are macros Swift cannot import.
        var stamp: Int64?
        var offset = 0
        let cmsgHeaderSize = MemoryLayout<Int>.size + 2 * MemoryLayout<Int32>.size
        let controlLength = unsafe header.msg_controllen
        while offset + cmsgHeaderSize <= controlLength {
            let length = unsafe control.load(fromByteOffset: offset, as: Int.self)
            let level = unsafe control.load(fromByteOffset: offset + MemoryLayout<Int>.size, as: Int32.self)
            let type = unsafe control.load(fromByteOffset: offset + MemoryLayout<Int>.size + 4, as: Int32.self)
            guard length >= cmsgHeaderSize, offset + length <= controlLength else { break }
            if level == SOL_SOCKET, type == timestampOption, length >= cmsgHeaderSize + MemoryLayout<timespec>.size {
                let time = unsafe control.loadUnaligned(fromByteOffset: offset + cmsgHeaderSize, as: timespec.self)
                stamp = Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
            }
            offset += (length + 7) & ~7
        }
        return (count, 0, stamp)
    }

    /// `fcntl(F_SETFL, O_NONBLOCK)` and `fcntl(F_SETFD, FD_CLOEXEC)`.
    static func makeNonBlockingCloseOnExec(_ fd: Int32) {
        let flags = fcntl(fd, F_GETFL)
        if flags >= 0 { _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK) }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
    }

    /// `close(fd)`.
    static func close(_ fd: Int32) {
        _ = Glibc.close(fd)
    }
}

/// Names the calling thread. `pthread_setname_np` needs `_GNU_SOURCE`, which Glibc's module does not define;
/// writing `/proc/thread-self/comm` is the same kernel operation (names longer than 15 bytes are cut there).
private func nameCurrentThread(_ name: String) {
    let descriptor = unsafe open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return }
    _ = unsafe name.withCString { unsafe write(descriptor, $0, strlen($0)) }
    close(descriptor)
}

/// A dedicated OS thread (the D-Bus loop must not run on the cooperative pool: it blocks in poll).
struct OSThread: Sendable {
    private let handle: pthread_t

    private final class Body {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }

    /// `pthread_create`; the body owns the thread until it returns. `name` (at most 15 bytes, Linux's limit) is what
    /// `top -H` and `/proc/PID/task/*/comm` show.
    static func start(name: String, _ body: @escaping @Sendable () -> Void) -> OSThread? {
        let named: @Sendable () -> Void = {
            nameCurrentThread(name)
            body()
        }
        let context = unsafe Unmanaged.passRetained(Body(named)).toOpaque()
        var handle = pthread_t()
        let result = unsafe pthread_create(&handle, nil, { context in
            let body = unsafe Unmanaged<Body>.fromOpaque(context!).takeRetainedValue()
            body.run()
            return nil
        }, context)
        guard result == 0 else {
            unsafe Unmanaged<Body>.fromOpaque(context).release()
            return nil
        }
        return OSThread(handle: handle)
    }

    /// `pthread_join`.
    func join() {
        _ = pthread_join(handle, nil)
    }

    /// `pthread_self`, as a number to compare.
    static var currentID: UInt { UInt(pthread_self()) }

    /// This thread's id as returned by `currentID` on it.
    var id: UInt { UInt(handle) }
}

/// A fixed receive buffer for one AcquireNotify socket: allocated once per acquisition, never per datagram.
@safe
final class DatagramReceiver: @unchecked Sendable {
    // SAFETY: `memory` and `control` are owned (allocated in init, freed in deinit); they and the arrival times are
    // only used under the lock of the acquired socket that owns this receiver (DeviceConnection's `Acquired`).
    private let memory: UnsafeMutableRawBufferPointer
    private let control: UnsafeMutableRawBufferPointer
    /// Host time (µs) of the last datagram handed on; nil before the first.
    private var lastArrivalMicros: Int64?
    /// How long before the last datagram the one ahead of it arrived (µs); nil before the second. Tells whether
    /// notifications come faster than a drain interval, so that draining in batches saves wake-ups.
    private(set) var lastArrivalGapMicros: Int64?

    /// - Parameter capacity: at least the ATT MTU, so no notification is truncated.
    init(capacity: Int) {
        unsafe memory = UnsafeMutableRawBufferPointer.allocate(byteCount: capacity, alignment: 16)
        unsafe control = UnsafeMutableRawBufferPointer.allocate(byteCount: 64, alignment: 16)
    }

    deinit {
        unsafe memory.deallocate()
        unsafe control.deallocate()
    }

    /// Reads every datagram queued on `fd` and hands each to `handler` with its host time (CLOCK_MONOTONIC µs): the
    /// kernel's arrival stamp when `stamped` (the socket has `SO_TIMESTAMPNS` on), else the time it was read.
    ///
    /// A read of 0 bytes is the end of the stream once the peer has hung up (`hungUp`, from the caller's poll),
    /// else an empty notification. A drain `onTimer` has no poll result to tell the two apart, so it asks with a
    /// poll of its own.
    /// - Returns: whether the socket turned out closed, else whether anything was read.
    // HOT PATH: no allocation, lock or log; one syscall per datagram.
    func drain(
        _ fd: Int32, stamped: Bool, hungUp: Bool, onTimer: Bool, to handler: NotificationSink
    ) -> DrainOutcome {
        // Stamps are CLOCK_REALTIME; notifications carry CLOCK_MONOTONIC. One offset per drain: a clock step in the
        // middle of a batch moves its samples by the step at most once.
        let realtimeToMonotonic = stamped ? Clock.monotonicMicros() * 1_000 - Clock.realtimeNanos() : 0
        var readAny = false
        while true {
            let outcome: Outcome
            let hostMicros: Int64
            if stamped {
                let (read, stamp) = receiveStamped(from: fd)
                outcome = read
                hostMicros = stamp.map { ($0 + realtimeToMonotonic) / 1_000 } ?? Clock.monotonicMicros()
            } else {
                outcome = receive(from: fd)
                hostMicros = Clock.monotonicMicros()
            }
            switch outcome {
            case .datagram(let count):
                if count == 0 && (hungUp || (onTimer && Syscall.hasHungUp(fd))) { return .closed }
                unsafe handler(UnsafeRawBufferPointer(rebasing: memory[0..<count]), hostMicros)
                readAny = true
                lastArrivalGapMicros = lastArrivalMicros.map { hostMicros - $0 }
                lastArrivalMicros = hostMicros
                // recv() == 0 without POLLHUP: an empty notification. Poll again before reading more, since a
                // hang-up racing in would also read as 0.
                if count == 0 { return .read }
            case .wouldBlock:
                return readAny ? .read : .empty
            case .failed:
                return .closed
            }
        }
    }

    private enum Outcome {
        case datagram(Int)
        case wouldBlock
        case failed(Int32)
    }

    /// Reads one datagram from `fd` (`recv`, MSG_DONTWAIT).
    private func receive(from fd: Int32) -> Outcome {
        let (count, error) = unsafe Syscall.receive(fd, into: memory)
        if let count { return .datagram(count) }
        return Self.unread(error)
    }

    /// Reads one datagram from `fd` with its arrival time (`recvmsg`, MSG_DONTWAIT, `SO_TIMESTAMPNS` enabled):
    /// the outcome and the kernel's stamp in nanoseconds since the epoch (nil if it gave none).
    private func receiveStamped(from fd: Int32) -> (Outcome, realtimeNanos: Int64?) {
        let (count, error, stamp) = unsafe Syscall.receiveStamped(fd, into: memory, control: control)
        if let count { return (.datagram(count), stamp) }
        return (Self.unread(error), nil)
    }

    /// A read that returned nothing: nothing queued (or interrupted: the next poll or drain reads what is left), else
    /// a failure.
    private static func unread(_ error: Int32) -> Outcome {
        error == EAGAIN || error == EWOULDBLOCK || error == EINTR ? .wouldBlock : .failed(error)
    }
}

/// What one drain of an acquired notify socket found.
enum DrainOutcome {
    case read, empty, closed
}
