import Glibc
import Synchronization

// One device's GATT session, supervised: connect (with retries), wait for ServicesResolved, resolve the notify
// characteristic by UUID, enable notifications, then watch for link loss, services changing, bluetoothd restarts
// and stop, and go round again. "Pitfall N" below is the numbered list in docs/bluez.md §4.
//
// Invariants:
// - `state` is touched on the D-Bus loop thread only; the supervising task reaches it through `perform`.
// - Notifications never pass through the task: StartNotify values arrive through the connection's fast path
//   (a route keyed by characteristic path, installed before StartNotify so none is missed; docs/bluez.md pitfall 1), AcquireNotify
//   datagrams through an fd watch on the loop thread or, paced, drained on the pacing owner's thread (`Acquired`
//   keeps the two readers apart). At most one route and one fd exist at a time, so a callback is never doubled
//   (pitfall 5).
// - The characteristic is re-resolved by UUID after every ServicesResolved=true (pitfall 9).
// - Every exit of `run()` goes through `cleanup()`: route removed, fd closed, StopNotify while connected, and
//   Disconnect only if this connection issued the Connect.

/// One BLE device's GATT session: connect, notifications, writes, reconnects. Knows nothing about grips.
///
/// Use: create it, start `run()` in a task, react to `.ready` (e.g. write the device's start command), call
/// `stop()` (or cancel the task) to end it. `run()` may be called once.
public final class DeviceConnection: Sendable {
    /// How notifications reach griptrack.
    public enum NotifyMode: Sendable, Hashable {
        /// `StartNotify` + `PropertiesChanged(Value)` signals (the default; survives reconnects).
        case startNotify
        /// `AcquireNotify` + a SOCK_SEQPACKET socket; falls back to StartNotify when BlueZ refuses it
        /// (`InProgress`: someone holds a StartNotify session; `NotPermitted`: already acquired).
        case acquireNotify
    }

    /// ATT write kind for `WriteValue`'s `type` option.
    public enum WriteType: String, Sendable {
        /// Write Request, acknowledged (flag `write`).
        case request
        /// Write Command, unacknowledged (flag `write-without-response`).
        case command
    }

    /// What to connect to and how hard to try.
    public struct Configuration: Sendable {
        /// The characteristic to receive notifications from.
        public var notifyCharacteristicUUID: String
        /// When set, characteristics are only looked up under this service.
        public var serviceUUID: String?
        /// StartNotify (default) or AcquireNotify.
        public var notifyMode: NotifyMode
        /// Connect attempts before the first successful connection gives up (later reconnects never give up).
        public var connectAttempts: Int = 5
        /// Wait before the second attempt; doubles each time up to `maximumBackoff`.
        public var initialBackoff: Duration = .milliseconds(250)
        /// Longest wait between attempts.
        public var maximumBackoff: Duration = .seconds(5)
        /// Method-call timeout for `Connect`.
        public var connectTimeout: Duration = .seconds(30)
        /// How long to wait for ServicesResolved after connecting.
        public var servicesResolvedTimeout: Duration = .seconds(20)
        /// Reconnect after link loss or a bluetoothd restart (otherwise `run()` throws `.disconnected`).
        public var reconnect: Bool = true
        /// When the device is not in BlueZ's object tree for this long, scan for it by address.
        public var rediscoverAfter: Duration = .seconds(5)
        /// With AcquireNotify, whether datagrams are read as they arrive or drained in batches by the pacing's owner
        /// (nil: as they arrive).
        public var pacing: NotificationPacing?

        /// - Parameters:
        ///   - notifyCharacteristicUUID: the data characteristic.
        ///   - serviceUUID: restricts the characteristic lookup to this service.
        ///   - notifyMode: `.startNotify` unless you need the fd path.
        public init(notifyCharacteristicUUID: String, serviceUUID: String? = nil, notifyMode: NotifyMode = .startNotify) {
            self.notifyCharacteristicUUID = notifyCharacteristicUUID
            self.serviceUUID = serviceUUID
            self.notifyMode = notifyMode
        }
    }

    /// Progress reports, in order, from the task running `run()`.
    public enum Event: Sendable, Equatable {
        /// The device is not in BlueZ's object tree; scanning for it.
        case waitingForDevice
        /// Calling `Connect` (attempt 1, 2, …).
        case connecting(attempt: Int)
        /// An attempt failed; the next one starts after `after`.
        case retrying(attempt: Int, after: Duration, error: GripBlueZError)
        /// ServicesResolved became true.
        case servicesResolved
        /// AcquireNotify was refused with this D-Bus error; using StartNotify instead.
        case fellBackToStartNotify(dbusError: String)
        /// Notifications are on: send the device's start command now.
        case ready(characteristic: ObjectPath, mode: NotifyMode)
        /// The device's services went away (ServicesResolved=false or the characteristic was removed).
        case servicesChanged
        /// bluetoothd left the bus.
        case bluetoothdStopped
        /// The link is down; a reconnect follows unless `reconnect` is off.
        case disconnected(reason: String)
    }

    private let client: BlueZClient
    private let address: String
    private let adapterName: String?
    private let configuration: Configuration
    private let onNotification: NotificationSink
    private let onEvent: @Sendable (Event) -> Void
    private let state = LoopState()

    private var connection: BusConnection { client.connection }
    private var cache: ObjectCache { client.cache }

    /// - Parameters:
    ///   - client: the process's BlueZ client.
    ///   - address: the device's Bluetooth address (from `BlueZClient.discover`).
    ///   - adapter: `hci0`-style adapter name, nil for the first one.
    ///   - configuration: characteristic, notify mode, retry policy.
    ///   - onNotification: called for every notification with its bytes (valid only during the call) and the host
    ///     time it was read (µs, CLOCK_MONOTONIC).
    ///   - onEvent: progress reports.
    /// - Important: `onNotification` runs on the D-Bus thread, or for a paced drain on the thread that calls
    ///   `NotificationPacing.drainIfDue()`, one at a time and in order: copy the bytes out and return; never block,
    ///   never call back into GripBlueZ from it.
    public init(
        client: BlueZClient, address: String, adapter: String? = nil, configuration: Configuration,
        onNotification: @escaping NotificationHandler,
        onEvent: @escaping @Sendable (Event) -> Void = { _ in }
    ) {
        self.client = client
        self.address = address.uppercased()
        self.adapterName = adapter
        self.configuration = configuration
        // SAFETY: NotificationSink only calls the handler with buffers valid for the call's duration.
        self.onNotification = unsafe NotificationSink(onNotification)
        self.onEvent = onEvent
    }

    /// Runs the session until `stop()`, task cancellation, or an error it cannot recover from; cleans up on every
    /// exit (StopNotify or closing the fd; Disconnect only if it connected the device).
    /// - Throws: `.adapterPoweredOff`, `.noAdapter`, `.bluetoothdNotRunning` at start; `.connectFailed` or
    ///   `.servicesNotResolved` when the first connection fails `connectAttempts` times;
    ///   `.characteristicNotFound`; `.disconnected` when the link drops and `reconnect` is off; `.closed`.
    public func run() async throws(GripBlueZError) {
        let result: Result<Void, GripBlueZError> = await withTaskCancellationHandler {
            do throws(GripBlueZError) {
                try await supervise()
                return .success(())
            } catch {
                return .failure(error)
            }
        } onCancel: {
            stop()
        }
        await cleanup()
        try result.get()
    }

    /// The host clock notifications are stamped with (µs, CLOCK_MONOTONIC), for callers that time their own events
    /// (writes, link changes) on the same base.
    public static func hostMicros() -> Int64 { Clock.monotonicMicros() }

    /// Asks `run()` to clean up and return. Safe from any thread except the notification callback.
    public func stop() {
        connection.execute { [state, cache] in
            state.stopRequested = true
            cache.poke()
        }
    }

    /// Writes to a characteristic of the device, found by UUID.
    /// - Parameters:
    ///   - bytes: the value.
    ///   - characteristicUUID: the characteristic (under `serviceUUID` when configured).
    ///   - type: nil picks from the characteristic's Flags: `request` when `write` is allowed, else `command`.
    /// - Throws: `.disconnected` when not connected, `.characteristicNotFound`, `.notPermitted` when the Flags
    ///   forbid it, `.methodFailed` when BlueZ refuses.
    public func write(_ bytes: [UInt8], to characteristicUUID: String, type: WriteType? = nil) async throws(GripBlueZError) {
        let lookup = await connection.perform { [self] () -> Result<(ObjectPath, [String]), GripBlueZError> in
            guard let device = state.devicePath ?? findDevicePath(),
                  cache.property(device, BlueZ.device, "Connected")?.boolValue == true
            else { return .failure(.disconnected(device: address, reason: "not connected")) }
            guard let characteristic = resolveCharacteristic(characteristicUUID, under: device) else {
                return .failure(.characteristicNotFound(device: address, uuid: characteristicUUID))
            }
            return .success(characteristic)
        }
        guard let lookup else { throw .closed }
        let (path, flags) = try lookup.get()
        let chosen: WriteType
        switch type {
        case .request? where flags.contains("write"), .command? where flags.contains("write-without-response"):
            chosen = type!
        case nil where flags.contains("write"):
            chosen = .request
        case nil where flags.contains("write-without-response"):
            chosen = .command
        default:
            throw .notPermitted(characteristic: path.rawValue, operation: "write (\(type?.rawValue ?? "any"))", flags: flags)
        }
        try await connection.call(
            BlueZ.service, path, BlueZ.characteristic, "WriteValue",
            [.bytes(bytes), .properties(["type": .string(chosen.rawValue)])], timeout: .seconds(10))
    }

    // MARK: Supervision

    private enum Established { case established, stopped, deviceGone }
    private enum Monitored { case stopped, busLost, bluezLost, deviceRemoved, linkLost, servicesChanged, notifyClosed }

    /// How long a closed notify socket waits for bluetoothd's signal that explains it.
    static let notifyCloseExplanationWait: Duration = .seconds(1)

    private func supervise() async throws(GripBlueZError) {
        _ = try await client.adapter(adapterName)
        var everReady = false
        while true {
            guard let devicePath = try await waitForDevice() else { return }
            switch try await establish(devicePath, attempts: everReady ? .max : configuration.connectAttempts) {
            case .stopped: return
            case .deviceGone: continue
            case .established: break
            }
            let resolved = try await onLoop { [self] in
                resolveCharacteristic(configuration.notifyCharacteristicUUID, under: devicePath)
            }
            guard let (notifyPath, _) = resolved else {
                throw .characteristicNotFound(device: address, uuid: configuration.notifyCharacteristicUUID)
            }
            let mode: NotifyMode
            do {
                mode = try await enableNotifications(notifyPath)
            } catch {
                // A link that dropped meanwhile is handled by the monitor below; anything else is fatal.
                let stillUp = try await onLoop { [self] in
                    cache.property(devicePath, BlueZ.device, "Connected")?.boolValue == true
                }
                if stillUp { throw error }
                continue
            }
            onEvent(.ready(characteristic: notifyPath, mode: mode))
            everReady = true

            var outcome = try await monitor(devicePath, notifyPath, mode)
            if outcome == .notifyClosed {
                // bluetoothd closes an acquired socket before it says why (Connected=false on a link loss; its name
                // leaving the bus when it dies): wait for the reason, so every notify mode reports a link loss the
                // same way whatever the order of the signals.
                outcome = await cache.wait(timeout: Self.notifyCloseExplanationWait) { [self] _ in
                    if cache.busLost { return Monitored.busLost }
                    if cache.bluezOwner == nil { return .bluezLost }
                    guard let device = cache.interfaces(at: devicePath)?[BlueZ.device] else { return .deviceRemoved }
                    return device["Connected"]?.boolValue == true ? nil : .linkLost
                } ?? .notifyClosed
            }
            switch outcome {
            case .stopped:
                return
            case .busLost:
                onEvent(.disconnected(reason: "D-Bus connection lost"))
                throw .busUnavailable(address: connection.address, dbusError: "org.freedesktop.DBus.Error.Disconnected",
                                      message: "the bus connection was closed; create a new BlueZClient")
            case .bluezLost:
                onEvent(.bluetoothdStopped)
                try await forgetSession(bluetoothdGone: true)
                onEvent(.disconnected(reason: "bluetoothd stopped"))
                guard configuration.reconnect else { throw .disconnected(device: address, reason: "bluetoothd stopped") }
            case .deviceRemoved:
                try await forgetSession(bluetoothdGone: true)
                onEvent(.disconnected(reason: "device removed by BlueZ"))
                guard configuration.reconnect else {
                    throw .disconnected(device: address, reason: "device removed by BlueZ")
                }
            case .linkLost:
                try await forgetSession(bluetoothdGone: false)
                onEvent(.disconnected(reason: "link lost"))
                guard configuration.reconnect else { throw .disconnected(device: address, reason: "link lost") }
            case .servicesChanged:
                try await onLoop { [self] in releaseAcquired() }
                // On link loss bluetoothd sends ServicesResolved=false just before Connected=false: give the second
                // signal a moment so a link loss is reported as one.
                let linkLost = await cache.wait(timeout: .milliseconds(250)) { [cache] _ in
                    cache.property(devicePath, BlueZ.device, "Connected")?.boolValue == true ? nil : true
                } ?? false
                if linkLost {
                    onEvent(.disconnected(reason: "link lost"))
                    guard configuration.reconnect else { throw .disconnected(device: address, reason: "link lost") }
                } else {
                    onEvent(.servicesChanged)
                }
            case .notifyClosed:
                // Closed with the link still up: notifications stopped all the same, so samples may be missing.
                // Reported as a disconnect so the stream is not bridged across the gap; re-acquired at once.
                onEvent(.disconnected(reason: "notification socket closed"))
            }
        }
    }

    /// Waits until the device is in BlueZ's tree (scanning for it after `rediscoverAfter`); nil when stopped.
    private func waitForDevice() async throws(GripBlueZError) -> ObjectPath? {
        enum Lookup: Sendable { case found(ObjectPath), stopped }
        var announced = false
        while true {
            let lookup = await cache.wait(timeout: configuration.rediscoverAfter) { [self] _ in
                if state.stopRequested { return Lookup.stopped }
                return findDevicePath().map(Lookup.found)
            }
            switch lookup {
            case .found(let path)?:
                try await onLoop { [state] in state.devicePath = path }
                return path
            case .stopped?:
                return nil
            case nil:
                if try await onLoop({ [state] in state.stopRequested }) { return nil }
                if !announced {
                    onEvent(.waitingForDevice)
                    announced = true
                }
                do {
                    _ = try await client.discover(
                        DeviceCriteria(address: address), adapter: adapterName, timeout: configuration.rediscoverAfter)
                } catch .closed {
                    throw .closed
                } catch {
                    // bluetoothd or the adapter may be coming back: keep waiting.
                }
            }
        }
    }

    /// Connects (unless already connected) and waits for ServicesResolved, retrying with backoff.
    private func establish(_ path: ObjectPath, attempts allowed: Int) async throws(GripBlueZError) -> Established {
        enum Resolution: Sendable { case resolved, dropped, gone, stopped }
        var attempt = 0
        while true {
            attempt += 1
            let (stopped, connected) = try await onLoop { [self] in
                (state.stopRequested, cache.property(path, BlueZ.device, "Connected")?.boolValue == true)
            }
            if stopped { return .stopped }
            if !connected {
                onEvent(.connecting(attempt: attempt))
                do {
                    try await connection.call(BlueZ.service, path, BlueZ.device, "Connect", timeout: configuration.connectTimeout)
                    try await onLoop { [state] in state.weConnected = true }
                    // Connect's reply means connected even when bluetoothd never signals Connected=true (pitfall 14).
                    try await cache.refresh(path, BlueZ.device)
                } catch .methodFailed(_, _, let name, let message) {
                    if name == BlueZ.Error.notReady {
                        throw .adapterPoweredOff(adapter: adapterName ?? path.rawValue.split(separator: "/")[2].description)
                    }
                    if name == BlueZ.Error.unknownObject || name == BlueZ.Error.doesNotExist { return .deviceGone }
                    let failure = GripBlueZError.connectFailed(device: address, attempts: attempt, dbusError: name, message: message)
                    guard attempt < allowed, Self.retryable.contains(name) else { throw failure }
                    if message.contains("abort-by-local") {
                        // bluetoothd reports Connected=false after the abort; retry only after it (pitfall 6).
                        _ = await cache.wait(timeout: .seconds(2)) { [cache] _ in
                            cache.property(path, BlueZ.device, "Connected")?.boolValue == true ? nil : true
                        }
                    }
                    guard try await backoff(attempt: attempt, error: failure) else { return .stopped }
                    continue
                }
            }
            let resolution = await cache.wait(timeout: configuration.servicesResolvedTimeout) { [self] _ in
                if state.stopRequested { return Resolution.stopped }
                guard let device = cache.interfaces(at: path)?[BlueZ.device] else { return .gone }
                if device["Connected"]?.boolValue != true { return .dropped }
                if device["ServicesResolved"]?.boolValue == true { return .resolved }
                return nil
            }
            switch resolution {
            case .resolved?:
                onEvent(.servicesResolved)
                return .established
            case .stopped?:
                return .stopped
            case .gone?:
                return .deviceGone
            case .dropped?:
                let failure = GripBlueZError.connectFailed(
                    device: address, attempts: attempt, dbusError: BlueZ.Error.failed,
                    message: "link dropped before services were resolved")
                guard attempt < allowed else { throw failure }
                guard try await backoff(attempt: attempt, error: failure) else { return .stopped }
            case nil:
                if try await onLoop({ [state] in state.stopRequested }) { return .stopped }
                let failure = GripBlueZError.servicesNotResolved(device: address, seconds: configuration.servicesResolvedTimeout.seconds)
                if try await onLoop({ [state] in state.weConnected }) {
                    _ = try? await connection.call(BlueZ.service, path, BlueZ.device, "Disconnect", timeout: .seconds(5))
                }
                guard attempt < allowed else { throw failure }
                guard try await backoff(attempt: attempt, error: failure) else { return .stopped }
            }
        }
    }

    /// D-Bus errors after which another Connect may succeed.
    private static let retryable: Set<String> = [
        BlueZ.Error.failed, BlueZ.Error.inProgress, BlueZ.Error.noReply, BlueZ.Error.connectionAttemptFailed,
        BlueZ.Error.notAvailable, BlueZ.Error.notConnected,
    ]

    /// Reports and sleeps before the next attempt; false when stopped meanwhile.
    private func backoff(attempt: Int, error: GripBlueZError) async throws(GripBlueZError) -> Bool {
        let exponent = min(attempt - 1, 16)
        let delay = min(configuration.initialBackoff * (1 << exponent), configuration.maximumBackoff)
        onEvent(.retrying(attempt: attempt, after: delay, error: error))
        _ = await cache.wait(timeout: delay) { [state] _ in state.stopRequested ? true : nil }
        return try await !onLoop { [state] in state.stopRequested }
    }

    /// Turns notifications on for `path`: AcquireNotify (if configured, falling back) or StartNotify.
    private func enableNotifications(_ path: ObjectPath) async throws(GripBlueZError) -> NotifyMode {
        if configuration.notifyMode == .acquireNotify {
            do throws(GripBlueZError) {
                let reply = try await connection.call(
                    BlueZ.service, path, BlueZ.characteristic, "AcquireNotify", [.properties([:])], timeout: .seconds(10))
                guard reply.count == 2, case .unixFD(let fd) = reply[0], let mtu = reply[1].integerValue else {
                    for case .unixFD(let fd) in reply { Syscall.close(fd) }
                    throw GripBlueZError.unexpectedReply(member: "AcquireNotify", signature: reply.map(\.signature.rawValue).joined())
                }
                let installed: Void? = await connection.perform { [self] in installAcquired(fd: fd, mtu: Int(mtu)) }
                if installed == nil {
                    Syscall.close(fd)
                    throw .closed
                }
                return .acquireNotify
            } catch .methodFailed(_, _, let name, _) where name == BlueZ.Error.inProgress || name == BlueZ.Error.notPermitted {
                onEvent(.fellBackToStartNotify(dbusError: name))
            }
        }
        // The route goes in before StartNotify: the first Value can beat StartNotify's reply (pitfall 1).
        try await onLoop { [self] in installRoute(path) }
        try await connection.call(BlueZ.service, path, BlueZ.characteristic, "StartNotify", timeout: .seconds(10))
        try await onLoop { [state] in state.sessionPath = path }
        return .startNotify
    }

    /// Waits until something ends this round.
    private func monitor(_ devicePath: ObjectPath, _ notifyPath: ObjectPath, _ mode: NotifyMode) async throws(GripBlueZError) -> Monitored {
        let outcome = await cache.wait(timeout: nil) { [self] _ in
            if state.stopRequested { return Monitored.stopped }
            if cache.busLost { return .busLost }
            if cache.bluezOwner == nil { return .bluezLost }
            guard let device = cache.interfaces(at: devicePath)?[BlueZ.device] else { return .deviceRemoved }
            if device["Connected"]?.boolValue != true { return .linkLost }
            if device["ServicesResolved"]?.boolValue != true { return .servicesChanged }
            if cache.interfaces(at: notifyPath)?[BlueZ.characteristic] == nil { return .servicesChanged }
            if mode == .acquireNotify && state.acquired == nil { return .notifyClosed }
            return nil
        }
        guard let outcome else { throw .closed }
        return outcome
    }

    /// After the link or bluetoothd went away: the fd is dead; with bluetoothd gone the StartNotify session and our
    /// Connect are gone too (a link drop keeps the session: bluetoothd re-arms it on reconnect).
    private func forgetSession(bluetoothdGone: Bool) async throws(GripBlueZError) {
        try await onLoop { [self] in
            releaseAcquired()
            if bluetoothdGone {
                state.sessionPath = nil
                state.weConnected = false
                state.devicePath = nil
            }
        }
    }

    /// The one cleanup path.
    private func cleanup() async {
        struct Plan: Sendable {
            var stopNotify: ObjectPath?
            var disconnect: ObjectPath?
        }
        let plan = await connection.perform { [self] () -> Plan in
            if let id = state.routeID { connection.notifications.remove(id) }
            state.routeID = nil
            state.routePath = nil
            releaseAcquired()
            let device = state.devicePath
            let connected = device.flatMap { cache.property($0, BlueZ.device, "Connected")?.boolValue } ?? false
            let plan = Plan(
                stopNotify: connected ? state.sessionPath : nil,
                disconnect: connected && state.weConnected ? device : nil)
            state.sessionPath = nil
            state.weConnected = false
            return plan
        }
        guard let plan else { return }
        if let path = plan.stopNotify {
            _ = try? await connection.call(BlueZ.service, path, BlueZ.characteristic, "StopNotify", timeout: .seconds(2))
        }
        if let path = plan.disconnect {
            _ = try? await connection.call(BlueZ.service, path, BlueZ.device, "Disconnect", timeout: .seconds(5))
        }
    }

    // MARK: Loop thread

    private func onLoop<T: Sendable>(_ body: @escaping @Sendable () -> T) async throws(GripBlueZError) -> T {
        guard let value = await connection.perform(body) else { throw .closed }
        return value
    }

    /// Loop thread.
    private func findDevicePath() -> ObjectPath? {
        let adapterPath = adapterName.map { ObjectPath(rawValue: "/org/bluez/" + $0) }
        return cache.objects(implementing: BlueZ.device).first { entry in
            entry.properties["Address"]?.stringValue?.uppercased() == address
                && (adapterPath == nil || entry.path.isDescendant(of: adapterPath!))
        }?.path
    }

    /// Loop thread: the characteristic with `uuid` under `device` (and under `serviceUUID` when configured).
    private func resolveCharacteristic(_ uuid: String, under device: ObjectPath) -> (ObjectPath, [String])? {
        let wanted = uuid.lowercased()
        let service = configuration.serviceUUID?.lowercased()
        for (path, properties) in cache.objects(implementing: BlueZ.characteristic)
        where path.isDescendant(of: device) && properties["UUID"]?.stringValue?.lowercased() == wanted {
            if let service {
                guard let servicePath = properties["Service"]?.objectPathValue,
                      cache.property(servicePath, BlueZ.gattService, "UUID")?.stringValue?.lowercased() == service
                else { continue }
            }
            return (path, properties["Flags"]?.stringsValue ?? [])
        }
        return nil
    }

    /// Loop thread: routes Value signals of `path` to the caller, replacing a route to an older path.
    private func installRoute(_ path: ObjectPath) {
        guard state.routePath != path else { return }
        if let id = state.routeID { connection.notifications.remove(id) }
        state.routeID = connection.notifications.add(path: path.rawValue, handler: onNotification)
        state.routePath = path
    }

    /// Loop thread: starts reading an acquired notify socket as datagrams arrive; paced, two arriving close together
    /// hand it to the pacing's owner for draining in batches (`acquiredSocketReady`).
    private func installAcquired(fd: Int32, mtu: Int) {
        releaseAcquired()
        Syscall.makeNonBlockingCloseOnExec(fd)
        // Without arrival stamps a batch would carry its read time: such a socket is read as datagrams arrive.
        let pacing = configuration.pacing.flatMap { Syscall.enableReceiveTimestamps(fd) ? $0 : nil }
        let id = connection.watch(fileDescriptor: fd) { [self] revents in acquiredSocketReady(revents) }
        state.acquired = Acquired(fd: fd, watchID: id, receiver: DatagramReceiver(capacity: max(mtu, 517)), pacing: pacing)
    }

    /// Loop thread: input (when read on arrival) or a hang-up (always) on the acquired socket. After a hang-up
    /// what is still queued is read first (paced, up to a batch interval of samples), then the socket is released.
    /// recv() == 0 with POLLHUP, or POLLHUP/POLLERR alone, means BlueZ closed it (hbldh/bleak#1982).
    ///
    /// Paced, draining starts only once two datagrams arrive less than a batch interval apart: a device that sends
    /// more slowly (an Entralpi's 10 Hz) costs one wake-up per notification on arrival, where a drain would add a
    /// wake-up that finds nothing.
    private func acquiredSocketReady(_ revents: Int16) {
        guard let acquired = state.acquired else { return }
        let hungUp = revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0
        let drain = acquired.read(hungUp: hungUp, onTimer: false, to: onNotification)
        if drain.outcome == .closed || hungUp {
            releaseAcquired()
            cache.poke()
        } else if let pacing = acquired.pacing, !pacing.isImmediate, !pacing.isDraining,
            let gap = drain.arrivalGapMicros, gap < pacing.batchMicros
        {
            // While the owner drains, the socket is polled for hang-up only.
            connection.setWatchInput(acquired.watchID, false)
            pacing.beginDrains(of: acquired) { [self] in drainTick(acquired) }
        }
    }

    /// Consecutive drains that must find nothing before the socket goes back to being read on arrival. BLE delivers
    /// notifications in bursts, one per connection event (every 7.5 ms to 4 s; 30–50 ms is common), which beat
    /// against the 40 ms drain grid: while streaming, a drain can fall between two bursts (with 45 ms events, one in
    /// nine), and stopping on it would cost a wake-up on the next arrival and restart the grid. Two in a row mean the
    /// device has gone quiet.
    static let emptyDrainsBeforeStop = 2

    /// The pacing owner's thread (`NotificationPacing.drainIfDue`): one paced drain. Drains that find nothing
    /// (`emptyDrainsBeforeStop`) or a switch to immediate hand the socket back to the loop thread to be read on
    /// arrival, so a connected but idle device wakes nobody; a closed socket is handed back to be released.
    private func drainTick(_ acquired: Acquired) {
        guard let pacing = acquired.pacing else { return }
        let drain = acquired.read(hungUp: false, onTimer: true, to: onNotification)
        switch drain.outcome {
        case nil:
            return
        case .closed:
            pacing.endDrains(of: acquired)
            connection.execute { [self] in
                guard state.acquired === acquired else { return }
                releaseAcquired()
                cache.poke()
            }
        case .read, .empty:
            guard pacing.isImmediate || drain.emptyDrains >= Self.emptyDrainsBeforeStop else { return }
            pacing.endDrains(of: acquired)
            // Datagrams arriving until the loop polls for input again wait in the socket: nothing is lost.
            connection.execute { [self] in
                guard state.acquired === acquired, !pacing.isDraining else { return }
                connection.setWatchInput(acquired.watchID, true)
            }
        }
    }

    /// Loop thread.
    private func releaseAcquired() {
        guard let acquired = state.acquired else { return }
        acquired.pacing?.endDrains(of: acquired)
        connection.removeWatch(acquired.watchID)
        acquired.close()
        state.acquired = nil
    }
}

/// An acquired notify socket. The loop thread reads it as datagrams arrive, and on hang-up; while paced draining is
/// on, the pacing's owner reads it on its thread. `socket` keeps the two readers apart and their datagrams in order
/// (a reader hands every datagram on before it unlocks), and a release closes the fd under it, so a drain that runs
/// late finds the socket released instead of reading an fd number that may have been reused.
private final class Acquired: Sendable {
    let watchID: Int
    /// Set when the socket stamps arrivals, so it may be drained in batches.
    let pacing: NotificationPacing?
    private let socket: Mutex<Socket>

    private struct Socket {
        /// nil once released.
        var fd: Int32?
        let receiver: DatagramReceiver
        /// Drains in a row that found nothing.
        var emptyDrains = 0
    }

    /// What one read found.
    struct Read {
        /// nil when the socket was already released.
        var outcome: DrainOutcome?
        /// How long before the last datagram the one ahead of it arrived (µs); nil before the second.
        var arrivalGapMicros: Int64?
        /// Drains in a row, this one included, that found nothing.
        var emptyDrains: Int
    }

    init(fd: Int32, watchID: Int, receiver: DatagramReceiver, pacing: NotificationPacing?) {
        self.watchID = watchID
        self.pacing = pacing
        self.socket = Mutex(Socket(fd: fd, receiver: receiver))
    }

    /// Reads every queued datagram and hands each to `handler` (`DatagramReceiver.drain`), and counts the drains
    /// `onTimer` in a row that found nothing (a read on arrival starts the count again).
    func read(hungUp: Bool, onTimer: Bool, to handler: NotificationSink) -> Read {
        socket.withLock { socket in
            guard let fd = socket.fd else { return Read(outcome: nil, emptyDrains: socket.emptyDrains) }
            let outcome = socket.receiver.drain(fd, stamped: pacing != nil, hungUp: hungUp, to: handler)
            socket.emptyDrains = onTimer && outcome == .empty ? socket.emptyDrains + 1 : 0
            return Read(
                outcome: outcome, arrivalGapMicros: socket.receiver.lastArrivalGapMicros, emptyDrains: socket.emptyDrains)
        }
    }

    /// Closes the fd; later reads find the socket released.
    func close() {
        socket.withLock { socket in
            if let fd = socket.fd { Syscall.close(fd) }
            socket.fd = nil
        }
    }
}

/// DeviceConnection's mutable state.
private final class LoopState: @unchecked Sendable {
    // SAFETY: accessed on the D-Bus loop thread only (DeviceConnection's file header).
    var stopRequested = false
    var devicePath: ObjectPath?
    var routeID: Int?
    var routePath: ObjectPath?
    var sessionPath: ObjectPath?
    var acquired: Acquired?
    var weConnected = false
}
