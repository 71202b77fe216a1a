// Raw system calls for the D-Bus loop thread and the AcquireNotify socket: one thin wrapper each, errno read at
// once (swift-system's Syscalls.swift style). EBADF/EFAULT mean a bug here and trap; the rest are returned.
//
// Invariants: descriptors passed in are owned by the caller and open; buffers are owned by the caller and valid for
// the call.

import CSocketBatch
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

    /// `setsockopt(SO_TIMESTAMPNS)`: the kernel stamps each datagram with its arrival time (CLOCK_REALTIME), read
    /// back by `arrivalStamp(in:)`. False when refused. Glibc's `SO_TIMESTAMPNS` is a macro Swift cannot import; 35 is
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

    /// The arrival time in one datagram's control messages (`SO_TIMESTAMPNS`), nanoseconds since the epoch, or nil
    /// without a stamp.
    // HOT PATH (paced drain): no allocation, no syscall.
    static func arrivalStamp(in control: UnsafeRawBufferPointer) -> Int64? {
        // Walk the control messages (struct cmsghdr: size_t length, int level, int type, then the data, each
        // message padded to 8 bytes): CMSG_FIRSTHDR/CMSG_NXTHDR are macros Swift cannot import.
        var stamp: Int64?
        var offset = 0
        let cmsgHeaderSize = MemoryLayout<Int>.size + 2 * MemoryLayout<Int32>.size
        let controlLength = control.count
        while offset + cmsgHeaderSize <= controlLength {
            let length = unsafe control.loadUnaligned(fromByteOffset: offset, as: Int.self)
            let level = unsafe control.loadUnaligned(fromByteOffset: offset + MemoryLayout<Int>.size, as: Int32.self)
            let type = unsafe control.loadUnaligned(fromByteOffset: offset + MemoryLayout<Int>.size + 4, as: Int32.self)
            guard length >= cmsgHeaderSize, offset + length <= controlLength else { break }
            if level == SOL_SOCKET, type == timestampOption, length >= cmsgHeaderSize + MemoryLayout<timespec>.size {
                let time = unsafe control.loadUnaligned(fromByteOffset: offset + cmsgHeaderSize, as: timespec.self)
                stamp = Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
            }
            offset += (length + 7) & ~7
        }
        return stamp
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

/// Fixed receive buffers for one AcquireNotify socket: allocated once per acquisition, never per datagram.
///
/// A drain receives up to `batchSize` datagrams per system call (recvmmsg(2), through `CSocketBatch`): a paced
/// 40 ms batch is 3–4 notifications at 80 Hz and 10 at 250 Hz, which cost one `recvmsg` each plus one that found the
/// queue empty; now they cost one call, and a call that returns fewer than it asked for means the queue is empty.
@safe
final class DatagramReceiver: @unchecked Sendable {
    // SAFETY: every buffer below is owned (allocated in init, freed in deinit), and the headers point only into
    // them; they and the arrival times are only used under the lock of the acquired socket that owns this receiver
    // (DeviceConnection's `Acquired`).
    /// Datagrams one system call receives at most.
    static let batchSize = 16
    /// Room for one datagram's control messages (an `SO_TIMESTAMPNS` stamp needs 32 bytes).
    private static let controlSize = 64
    private let capacity: Int
    private let memory: UnsafeMutableRawBufferPointer
    private let control: UnsafeMutableRawBufferPointer
    private let vectors: UnsafeMutableBufferPointer<iovec>
    private let headers: UnsafeMutableBufferPointer<griptrack_mmsghdr>
    /// Host time (µs) of the last datagram handed on; nil before the first.
    private var lastArrivalMicros: Int64?
    /// How long before the last datagram the one ahead of it arrived (µs); nil before the second. Tells whether
    /// notifications come faster than a drain interval, so that draining in batches saves wake-ups.
    private(set) var lastArrivalGapMicros: Int64?

    /// - Parameter capacity: at least the ATT MTU, so no notification is truncated.
    init(capacity: Int) {
        self.capacity = capacity
        let count = Self.batchSize
        unsafe memory = UnsafeMutableRawBufferPointer.allocate(byteCount: capacity * count, alignment: 16)
        unsafe control = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.controlSize * count, alignment: 16)
        unsafe vectors = UnsafeMutableBufferPointer<iovec>.allocate(capacity: count)
        unsafe headers = UnsafeMutableBufferPointer<griptrack_mmsghdr>.allocate(capacity: count)
        for index in 0..<count {
            unsafe vectors[index] = iovec(iov_base: memory.baseAddress! + index * capacity, iov_len: capacity)
            var header = unsafe griptrack_mmsghdr()
            unsafe header.msg_hdr.msg_iov = vectors.baseAddress! + index
            unsafe header.msg_hdr.msg_iovlen = 1
            unsafe header.msg_hdr.msg_control = control.baseAddress! + index * Self.controlSize
            unsafe headers[index] = header
        }
    }

    deinit {
        unsafe memory.deallocate()
        unsafe control.deallocate()
        unsafe vectors.deallocate()
        unsafe headers.deallocate()
    }

    /// Reads every datagram queued on `fd` and hands each to `handler` with its host time (CLOCK_MONOTONIC µs): the
    /// kernel's arrival stamp when `stamped` (the socket has `SO_TIMESTAMPNS` on), else the time it was read.
    ///
    /// A datagram of 0 bytes is the end of the stream once the peer has hung up (`hungUp`, from the caller's poll,
    /// or a poll of its own: those that follow it in the batch are the same end), else an empty notification.
    /// - Returns: whether the socket turned out closed, else whether anything was read.
    // HOT PATH: no allocation, lock or log; one syscall per `batchSize` datagrams.
    func drain(_ fd: Int32, stamped: Bool, hungUp: Bool, to handler: NotificationSink) -> DrainOutcome {
        // Stamps are CLOCK_REALTIME; notifications carry CLOCK_MONOTONIC. One offset per drain: a clock step in the
        // middle of a batch moves its samples by the step at most once.
        let realtimeToMonotonic = stamped ? Clock.monotonicMicros() * 1_000 - Clock.realtimeNanos() : 0
        var readAny = false
        while true {
            for index in 0..<Self.batchSize {
                // The kernel overwrites these with what it filled in.
                unsafe headers[index].msg_hdr.msg_controllen = Self.controlSize
                unsafe headers[index].msg_hdr.msg_flags = 0
            }
            let received = unsafe griptrack_recvmmsg(
                fd, headers.baseAddress, UInt32(Self.batchSize), Int32(MSG_DONTWAIT))
            if received < 0 {
                let error = errno
                guard error == EAGAIN || error == EWOULDBLOCK || error == EINTR else { return .closed }
                // Nothing queued (or interrupted: the next poll or drain reads what is left).
                return readAny ? .read : .empty
            }
            let readMicros = stamped ? 0 : Clock.monotonicMicros()
            for index in 0..<Int(received) {
                let header = unsafe headers[index]
                let count = unsafe min(Int(header.msg_len), capacity)
                if count == 0 && (hungUp || Syscall.hasHungUp(fd)) { return .closed }
                let hostMicros: Int64
                if stamped {
                    let controlBytes = unsafe UnsafeRawBufferPointer(
                        start: control.baseAddress! + index * Self.controlSize,
                        count: min(Int(header.msg_hdr.msg_controllen), Self.controlSize))
                    let stamp = unsafe Syscall.arrivalStamp(in: controlBytes)
                    hostMicros = stamp.map { ($0 + realtimeToMonotonic) / 1_000 } ?? Clock.monotonicMicros()
                } else {
                    hostMicros = readMicros
                }
                let value = unsafe UnsafeRawBufferPointer(start: memory.baseAddress! + index * capacity, count: count)
                unsafe handler(value, hostMicros)
                readAny = true
                lastArrivalGapMicros = lastArrivalMicros.map { hostMicros - $0 }
                lastArrivalMicros = hostMicros
            }
            // Fewer than asked for: the queue ran empty, so no call is needed to find that out.
            if received < Self.batchSize { return .read }
        }
    }
}

/// What one drain of an acquired notify socket found.
enum DrainOutcome {
    case read, empty, closed
}
