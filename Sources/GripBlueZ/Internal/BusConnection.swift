// One private D-Bus connection and the dedicated thread that runs it.
//
// Invariants:
// - After `open` returns, only the loop thread touches the libdbus connection, the watch/timeout tables, fd
//   watches, timers, message handlers and pending-call table. Other threads hand work over with `execute`
//   (a Mutex-protected job list plus one byte on the wake pipe).
// - The loop thread blocks only in poll(2), on: the wake pipe, libdbus's enabled watches, and registered fds; its
//   timeout is the nearest libdbus timeout (method-call reply timeouts) or timer. An idle connection makes no
//   periodic wake-ups.
// - Every method call's completion runs exactly once: with the reply, or with `.closed` when the loop stops first.

import Glibc
import Synchronization

/// `package`: the tests' fake-BlueZ harness (GripTestSupport) drives the fake's control interface through it.
package final class BusConnection: @unchecked Sendable {
    // SAFETY: the `var`s below marked "loop thread" are only accessed on the loop thread (checked by
    // `assertOnLoop` in debug builds); `shared` is a Mutex; the rest is immutable after init.

    package let address: String
    package let uniqueName: String
    private let raw: RawConnection
    private let wake: (read: Int32, write: Int32)
    private let shared = Mutex(Shared())
    private let loopThreadID = Atomic<UInt>(0)
    private var thread: OSThread?

    private struct Shared {
        var jobs: [@Sendable () -> Void] = []
        var stopping = false
        var stopped = false
    }

    // Loop thread state.
    private var watches: [WatchHandle] = []
    private var timeouts: [TimeoutHandle: Int64] = [:]
    private var fdWatches: [Int: (fd: Int32, events: Int16, handler: @Sendable (Int16) -> Void)] = [:]
    /// Pending one-shot timers.
    private var timers: [Int: (deadline: Int64, body: @Sendable () -> Void)] = [:]
    private var messageHandlers: [(id: Int, handler: @Sendable (OwnedMessage) -> Void)] = []
    private var pendingCalls: [Int: @Sendable (OwnedMessage?) -> Void] = [:]
    private var closeHandlers: [@Sendable () -> Void] = []
    private var nextID = 0
    private var pollFDs: [pollfd] = []
    /// What one `pollOnce` polls, in `pollFDs` order after the wake pipe. Kept between calls (emptied, capacity
    /// kept) so a wake-up allocates nothing: the loop wakes for every notification.
    private var polledWatches: [WatchHandle] = []
    private var polledFDWatches: [(id: Int, fd: Int32, handler: @Sendable (Int16) -> Void)] = []
    private(set) var isDisconnected = false

    private init(address: String, raw: RawConnection, wake: (read: Int32, write: Int32)) {
        self.address = address
        self.raw = raw
        self.uniqueName = raw.uniqueName
        self.wake = wake
    }

    /// Connects to `address` (nil: `DBUS_SYSTEM_BUS_ADDRESS`, else the system bus) and starts the loop thread.
    package static func open(address: String?) throws(GripBlueZError) -> BusConnection {
        let address = address ?? LibDBus.systemBusAddress()
        let raw: RawConnection
        switch RawConnection.open(address: address) {
        case .success(let connection): raw = connection
        case .failure(let error):
            throw .busUnavailable(address: address, dbusError: error.name, message: error.message)
        }
        guard let wake = Syscall.wakePipe() else {
            raw.close()
            throw .busUnavailable(address: address, dbusError: "org.freedesktop.DBus.Error.NoMemory", message: "pipe")
        }
        let connection = BusConnection(address: address, raw: raw, wake: wake)
        // Install callbacks before the thread starts: libdbus calls watchAdded now, on this thread, which is safe
        // because the loop is not running yet.
        guard raw.install(connection) else {
            raw.close()
            throw .busUnavailable(address: address, dbusError: "org.freedesktop.DBus.Error.NoMemory", message: "install")
        }
        guard let thread = OSThread.start(name: "gt-dbus", { connection.runLoop() }) else {
            raw.close()
            throw .busUnavailable(address: address, dbusError: "org.freedesktop.DBus.Error.Failed", message: "thread")
        }
        connection.thread = thread
        return connection
    }

    /// Whether the caller runs on this connection's loop thread.
    var isOnLoopThread: Bool { loopThreadID.load(ordering: .acquiring) == OSThread.currentID }

    private func assertOnLoop() {
        assert(isOnLoopThread || loopThreadID.load(ordering: .acquiring) == 0, "not on the D-Bus loop thread")
    }

    /// The notification fast path's routes (loop thread only).
    var notifications: Notifications { raw.notifications }

    // MARK: Handing work to the loop

    /// Runs `body` on the loop thread; false (and `body` dropped) once the connection is closed.
    @discardableResult
    func execute(_ body: @escaping @Sendable () -> Void) -> Bool {
        let accepted = shared.withLock { state -> Bool in
            guard !state.stopping else { return false }
            state.jobs.append(body)
            return true
        }
        if accepted { Syscall.signalWakePipe(wake.write) }
        return accepted
    }

    /// Runs `body` on the loop thread and returns its result; nil when the connection is closed.
    func perform<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T? {
        await withCheckedContinuation { (continuation: CheckedContinuation<T?, Never>) in
            let accepted = execute { continuation.resume(returning: body()) }
            if !accepted { continuation.resume(returning: nil) }
        }
    }

    // MARK: Method calls

    /// Calls a method and returns the reply's arguments.
    /// - Throws: `.methodFailed` with the D-Bus error name (NoReply after `timeout`), `.closed`,
    ///   `.invalidArgument`.
    @discardableResult
    package func call(
        _ destination: String, _ path: ObjectPath, _ interface: String, _ member: String,
        _ arguments: [DBusValue] = [], timeout: Duration = .seconds(25)
    ) async throws(GripBlueZError) -> [DBusValue] {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<[DBusValue], GripBlueZError>, Never>) in
            send(destination, path, interface, member, arguments, timeout: timeout) { continuation.resume(returning: $0) }
        }
        return try result.get()
    }

    /// Sends a method call; `completion` runs once, on the loop thread (or the caller's when it fails early).
    func send(
        _ destination: String, _ path: ObjectPath, _ interface: String, _ member: String, _ arguments: [DBusValue],
        timeout: Duration, completion: @escaping @Sendable (Result<[DBusValue], GripBlueZError>) -> Void
    ) {
        guard let message = OwnedMessage.methodCall(
            destination: destination, path: path.rawValue, interface: interface, member: member),
            message.append(arguments)
        else {
            completion(.failure(.invalidArgument(member: member)))
            return
        }
        let milliseconds = timeout.clampedMilliseconds
        let accepted = execute { [self] in
            nextID += 1
            let id = nextID
            pendingCalls[id] = { reply in
                guard let reply else {
                    completion(.failure(.closed))
                    return
                }
                completion(Self.decodeReply(reply, member: member, path: path))
            }
            raw.send(message, timeoutMilliseconds: milliseconds) { [self] reply in
                pendingCalls.removeValue(forKey: id)?(reply)
            }
        }
        if !accepted { completion(.failure(.closed)) }
    }

    private static func decodeReply(_ reply: OwnedMessage, member: String, path: ObjectPath)
        -> Result<[DBusValue], GripBlueZError>
    {
        let arguments = reply.arguments()
        if reply.type == DBusMessageType.error {
            let message = arguments.first?.stringValue ?? ""
            for value in arguments { if case .unixFD(let fd) = value { Syscall.close(fd) } }
            return .failure(.methodFailed(
                member: member, path: path.rawValue,
                dbusError: reply.errorName ?? "org.freedesktop.DBus.Error.Failed", message: message))
        }
        return .success(arguments)
    }

    /// Installs a match rule on the bus (`org.freedesktop.DBus.AddMatch`); returns once the bus applied it.
    func addMatch(_ rule: String) async throws(GripBlueZError) {
        _ = try await call(
            "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "AddMatch", [.string(rule)])
    }

    // MARK: Loop-thread registrations

    /// Calls `handler` on the loop thread for every incoming message the fast path did not consume
    /// (signals, and libdbus's local Disconnected). Loop thread only.
    func addMessageHandler(_ handler: @escaping @Sendable (OwnedMessage) -> Void) -> Int {
        assertOnLoop()
        nextID += 1
        messageHandlers.append((nextID, handler))
        return nextID
    }

    /// Loop thread only.
    func removeMessageHandler(_ id: Int) {
        assertOnLoop()
        messageHandlers.removeAll { $0.id == id }
    }

    /// Polls `fd` for input (unless `input` is false) and hang-up, and calls `handler(revents)` on the loop thread.
    /// Loop thread only.
    func watch(fileDescriptor fd: Int32, input: Bool = true, handler: @escaping @Sendable (Int16) -> Void) -> Int {
        assertOnLoop()
        nextID += 1
        fdWatches[nextID] = (fd, input ? Int16(POLLIN) : 0, handler)
        return nextID
    }

    /// Turns polling for input on or off for watch `id`; hang-up and errors are always reported. Loop thread only.
    func setWatchInput(_ id: Int, _ input: Bool) {
        assertOnLoop()
        fdWatches[id]?.events = input ? Int16(POLLIN) : 0
    }

    /// Loop thread only.
    func removeWatch(_ id: Int) {
        assertOnLoop()
        fdWatches.removeValue(forKey: id)
    }

    /// Runs `body` once on the loop thread after `delay`. Loop thread only.
    @discardableResult
    func schedule(after delay: Duration, _ body: @escaping @Sendable () -> Void) -> Int {
        assertOnLoop()
        nextID += 1
        timers[nextID] = (Clock.monotonicMicros() + Int64(delay.seconds * 1_000_000), body)
        return nextID
    }

    /// Loop thread only.
    func cancelTimer(_ id: Int) {
        assertOnLoop()
        timers.removeValue(forKey: id)
    }

    /// Runs `body` on the loop thread when the loop stops (to release waiters). Loop thread only.
    func onClose(_ body: @escaping @Sendable () -> Void) {
        assertOnLoop()
        closeHandlers.append(body)
    }

    // MARK: Lifecycle

    /// Stops the loop thread, fails outstanding calls with `.closed` and closes the connection. Idempotent.
    /// From another thread it returns once the loop thread has finished; on the loop thread itself it only asks
    /// the loop to stop after the current callback.
    package func close() {
        let first = shared.withLock { state -> Bool in
            defer { state.stopping = true }
            return !state.stopping
        }
        guard first else { return }
        Syscall.signalWakePipe(wake.write)
        if !isOnLoopThread { thread?.join() }
    }

    deinit {
        // The loop thread holds a reference until it returns, so by now it has stopped (or never started).
        Syscall.close(wake.read)
        Syscall.close(wake.write)
        if thread == nil { raw.close() }
    }

    private func runLoop() {
        loopThreadID.store(OSThread.currentID, ordering: .releasing)
        while true {
            let (jobs, stopping) = shared.withLock { state in
                defer { state.jobs.removeAll(keepingCapacity: true) }
                return (state.jobs, state.stopping)
            }
            for job in jobs { job() }
            if stopping { break }
            raw.dispatchAll()
            pollOnce()
        }
        // Drain: anything queued before `stopping` was set ran above; fail what is still in flight.
        let pending = pendingCalls
        pendingCalls.removeAll()
        for completion in pending.values { completion(nil) }
        let handlers = closeHandlers
        closeHandlers.removeAll()
        for handler in handlers { handler() }
        messageHandlers.removeAll()
        fdWatches.removeAll()
        timers.removeAll()
        raw.close()
    }

    private func pollOnce() {
        pollFDs.removeAll(keepingCapacity: true)
        pollFDs.append(pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0))
        polledWatches.removeAll(keepingCapacity: true)
        for watch in watches where watch.isEnabled {
            polledWatches.append(watch)
            var events: Int16 = 0
            if watch.flags & DBusWatchFlags.readable != 0 { events |= Int16(POLLIN) }
            if watch.flags & DBusWatchFlags.writable != 0 { events |= Int16(POLLOUT) }
            pollFDs.append(pollfd(fd: watch.fileDescriptor, events: events, revents: 0))
        }
        polledFDWatches.removeAll(keepingCapacity: true)
        for (id, entry) in fdWatches {
            polledFDWatches.append((id, entry.fd, entry.handler))
            pollFDs.append(pollfd(fd: entry.fd, events: entry.events, revents: 0))
        }

        let now = Clock.monotonicMicros()
        var nearest = Int64.max
        for (timeout, deadline) in timeouts where timeout.isEnabled { nearest = min(nearest, deadline) }
        for timer in timers.values { nearest = min(nearest, timer.deadline) }
        var timeoutMilliseconds: Int32 = -1
        if raw.hasMessagesToDispatch {
            timeoutMilliseconds = 0
        } else if nearest != .max {
            timeoutMilliseconds = Int32(clamping: max(0, (nearest - now + 999) / 1000))
        }

        _ = Syscall.poll(&pollFDs, timeoutMilliseconds: timeoutMilliseconds)

        if pollFDs[0].revents != 0 { Syscall.drainWakePipe(wake.read) }
        for (index, watch) in polledWatches.enumerated() {
            let revents = pollFDs[index + 1].revents
            guard revents != 0, watches.contains(watch) else { continue }
            var conditions: UInt32 = 0
            if revents & Int16(POLLIN) != 0 { conditions |= DBusWatchFlags.readable }
            if revents & Int16(POLLOUT) != 0 { conditions |= DBusWatchFlags.writable }
            if revents & Int16(POLLERR) != 0 { conditions |= DBusWatchFlags.error }
            if revents & Int16(POLLHUP) != 0 { conditions |= DBusWatchFlags.hangup }
            watch.handle(conditions)
        }
        let base = 1 + polledWatches.count
        for (offset, entry) in polledFDWatches.enumerated() {
            let revents = pollFDs[base + offset].revents
            guard revents != 0, fdWatches[entry.id] != nil else { continue }
            entry.handler(revents)
        }

        let after = Clock.monotonicMicros()
        for (timeout, deadline) in timeouts where timeout.isEnabled && deadline <= after {
            guard timeouts[timeout] != nil else { continue }
            timeouts[timeout] = after + Int64(timeout.intervalMilliseconds) * 1000
            timeout.handle()
        }
        // Earliest first, one at a time, without copying the table or allocating. A body may add or cancel timers.
        while let next = timers.min(by: { $0.value.deadline < $1.value.deadline }), next.value.deadline <= after {
            timers.removeValue(forKey: next.key)
            next.value.body()
        }
    }
}

extension BusConnection: ConnectionEvents {
    func watchAdded(_ watch: WatchHandle) { watches.append(watch) }
    func watchRemoved(_ watch: WatchHandle) { watches.removeAll { $0 == watch } }
    func watchToggled(_ watch: WatchHandle) { wakeUp() }

    func timeoutAdded(_ timeout: TimeoutHandle) {
        timeouts[timeout] = Clock.monotonicMicros() + Int64(timeout.intervalMilliseconds) * 1000
        wakeUp()
    }

    func timeoutRemoved(_ timeout: TimeoutHandle) { timeouts.removeValue(forKey: timeout) }

    func timeoutToggled(_ timeout: TimeoutHandle) {
        timeouts[timeout] = Clock.monotonicMicros() + Int64(timeout.intervalMilliseconds) * 1000
        wakeUp()
    }

    func wakeUp() {
        if !isOnLoopThread { Syscall.signalWakePipe(wake.write) }
    }

    func received(_ message: OwnedMessage) {
        if message.type == DBusMessageType.signal, message.interface == "org.freedesktop.DBus.Local",
           message.member == "Disconnected" {
            isDisconnected = true
        }
        for entry in messageHandlers { entry.handler(message) }
    }
}
