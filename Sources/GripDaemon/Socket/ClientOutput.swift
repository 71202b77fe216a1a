import Glibc
import GripSystem
import GripProtocol
import Synchronization

/// One client's outgoing bytes, shared by the two threads that write to it: the socket thread (greetings, replies,
/// reports) and the consumer thread (SAMPLES and stream events to a watcher, see ``LiveWriter``).
///
/// Every line goes through one lock, so each client's lines keep the order in which they were queued, and the
/// socket thread closes the descriptor under the same lock, so the consumer never writes to a descriptor number
/// that has been closed (and perhaps reused by a file another thread opened since).
///
/// The consumer only queues and writes without blocking; everything that decides a client's fate (dropping a slow
/// or broken one, the budget over all clients, waiting for POLLOUT) stays on the socket thread, which the consumer
/// wakes through ``LiveWatchers`` when a write left bytes behind or failed.
final class ClientOutput: Sendable {
    /// Why a client must be dropped.
    enum Failure: Sendable, Equatable {
        /// Its queue would pass the backlog limit (the bytes it held).
        case tooSlow(backlogBytes: Int)
        /// The socket refused a write (the peer reset the connection, or worse).
        case writeFailed
    }

    /// What a write left.
    enum Outcome: Sendable, Equatable {
        /// Everything queued reached the kernel.
        case caughtUp
        /// Bytes wait for POLLOUT.
        case behind
        /// The client must be dropped (or already was): nothing was queued.
        case failed
        /// The client does not watch at the pace the line was for: nothing was queued.
        case notWatching
    }

    /// The connection; closed only through ``close()``.
    let descriptor: Int32

    private struct State: Sendable {
        var bytes: [UInt8] = []
        /// The first byte of `bytes` not written yet.
        var start = 0
        /// Since when bytes have waited without the client catching up; nil while it is caught up.
        var behindSince: ContinuousClock.Instant?
        /// How the client takes SAMPLES, nil while it does not watch (or is about to be closed).
        var pace: WatchPace?
        var failure: Failure?
        var closed = false

        var pendingBytes: Int { bytes.count - start }
    }

    private let state = Mutex(State())

    init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// Bytes queued and not yet taken by the kernel.
    var pendingBytes: Int { state.withLock { $0.pendingBytes } }

    /// Since when the client has been behind (nil: caught up).
    var behindSince: ContinuousClock.Instant? { state.withLock { $0.behindSince } }

    /// Why the client must be dropped, if a write found out.
    var failure: Failure? { state.withLock { $0.failure } }

    /// Socket thread: the pace at which the consumer may send this client live lines (nil: none).
    func setLivePace(_ pace: WatchPace?) {
        state.withLock { $0.pace = pace }
    }

    /// Queues `line` and writes as much as the socket takes at once.
    ///
    /// A line larger than `backlogLimit` still goes to a client that has caught up; a backlog does not grow past it
    /// (the client fails with `.tooSlow`).
    /// - Parameter pace: for a live line, the pace it was made for: only a client watching at that pace gets it.
    func send(_ line: String, backlogLimit: Int, ifWatching pace: WatchPace? = nil) -> Outcome {
        var line = line
        return line.withUTF8 { send(bytes: $0, backlogLimit: backlogLimit, ifWatching: pace) }
    }

    /// `send(_:backlogLimit:ifWatching:)` for a line already in bytes (the consumer's SAMPLES lines).
    func send(bytes line: UnsafeBufferPointer<UInt8>, backlogLimit: Int, ifWatching pace: WatchPace? = nil) -> Outcome {
        state.withLock { state in
            // Closing clears the pace, so a live line to a client closed meanwhile is simply not sent.
            if let pace, state.pace != pace { return .notWatching }
            if state.closed || state.failure != nil { return .failed }
            let pending = state.pendingBytes
            if pending > 0 && pending + line.count > backlogLimit {
                state.failure = .tooSlow(backlogBytes: pending)
                return .failed
            }
            if pending == 0 {
                // Caught up (the usual case): write straight from the line's storage, queue only what the kernel left.
                let written = Self.write(descriptor, line)
                guard written >= 0 else {
                    state.failure = .writeFailed
                    return .failed
                }
                if written == line.count { return .caughtUp }
                state.bytes.removeAll(keepingCapacity: state.bytes.capacity <= 65536)
                state.start = 0
                state.bytes.append(contentsOf: line[written...])
            } else {
                state.bytes.append(contentsOf: line)
            }
            return Self.flush(&state, descriptor)
        }
    }

    /// Socket thread, on POLLOUT: writes as much queued output as the socket takes.
    func flush() -> Outcome {
        state.withLock { state in
            if state.closed || state.failure != nil { return .failed }
            return Self.flush(&state, descriptor)
        }
    }

    /// Socket thread: closes the descriptor; later writes from either thread do nothing.
    func close() {
        state.withLock { state in
            guard !state.closed else { return }
            state.closed = true
            state.pace = nil
            state.bytes = []
            state.start = 0
            _ = Glibc.close(descriptor)
        }
    }

    private static func flush(_ state: inout State, _ descriptor: Int32) -> Outcome {
        while state.pendingBytes > 0 {
            let written = state.bytes[state.start...].withUnsafeBufferPointer { Self.write(descriptor, $0) }
            guard written >= 0 else {
                state.failure = .writeFailed
                return .failed
            }
            if written == 0 {
                // EAGAIN: the kernel's buffer is full; POLLOUT says when to go on.
                if state.behindSince == nil { state.behindSince = .now }
                return .behind
            }
            state.start += written
        }
        state.bytes.removeAll(keepingCapacity: state.bytes.capacity <= 65536)
        state.start = 0
        state.behindSince = nil
        return .caughtUp
    }

    /// One non-blocking send: the bytes taken, 0 when the socket is full, -1 when the connection is broken.
    private static func write(_ descriptor: Int32, _ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var offset = 0
        while offset < bytes.count {
            let written = SystemCall.retryingOnInterrupt {
                Glibc.send(descriptor, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
            }
            if written < 0 { return errno == EAGAIN ? offset : -1 }
            offset += written
        }
        return offset
    }
}
