// BlueZ's object tree, mirrored from ObjectManager signals (bleak's manager.py model).
//
// Invariants:
// - All state lives on the connection's loop thread; other threads read it through `BusConnection.perform`.
// - Match rules are installed (and acknowledged by the bus) before GetManagedObjects, so no change between the
//   snapshot and the first signal is lost; signals that arrive before the snapshot reply are already reflected in it.
// - The cache is updated before watchers run, so a watcher always sees the state the event describes.
// - PropertiesChanged for an unknown path is dropped (the object will arrive with InterfacesAdded).
// - When org.bluez loses its owner (bluetoothd stopped), the cache is emptied; when a new owner appears it is
//   rebuilt from a fresh GetManagedObjects, and replies from an older owner's generation are ignored.

/// What changed in the cache. Delivered on the D-Bus loop thread, after the cache was updated.
enum CacheEvent: Sendable {
    case interfacesAdded(ObjectPath, [String])
    case interfacesRemoved(ObjectPath, [String])
    case propertiesChanged(ObjectPath, interface: String, changed: [String: DBusValue], invalidated: [String])
    /// org.bluez has no owner any more; the cache is empty.
    case bluezLost
    /// org.bluez has an owner again and the cache was rebuilt from its objects.
    case bluezAppeared
    /// Not a cache change: a waiter's own condition may have changed (stop requested, fd hung up).
    case poke
}

/// Interface name → property name → value.
typealias ObjectInterfaces = [String: [String: DBusValue]]

final class ObjectCache: @unchecked Sendable {
    // SAFETY: every `var` is accessed on the connection's loop thread only (see the file header).

    let connection: BusConnection
    private var objects: [ObjectPath: ObjectInterfaces] = [:]
    private var watchers: [(id: Int, body: @Sendable (CacheEvent) -> Void)] = []
    private var nextWatcherID = 0
    /// Pending `wait`s, released with nil when the connection closes.
    private var waiters: [Int: @Sendable () -> Void] = [:]
    private var generation = 0
    private var handlerID: Int?
    /// Unique name of org.bluez's owner, nil while bluetoothd is not running.
    private(set) var bluezOwner: String?
    /// The bus connection dropped (libdbus's local Disconnected signal); the client must be recreated.
    private(set) var busLost = false

    init(connection: BusConnection) {
        self.connection = connection
    }

    static let matchRules = [
        "type='signal',sender='org.bluez',interface='org.freedesktop.DBus.Properties',member='PropertiesChanged',"
            + "path_namespace='/org/bluez'",
        "type='signal',sender='org.bluez',interface='org.freedesktop.DBus.ObjectManager',member='InterfacesAdded'",
        "type='signal',sender='org.bluez',interface='org.freedesktop.DBus.ObjectManager',member='InterfacesRemoved'",
        "type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',member='NameOwnerChanged',"
            + "arg0='org.bluez'",
    ]

    /// Subscribes, then takes the snapshot. When bluetoothd is not running the cache starts empty and fills when
    /// it appears.
    func start() async throws(GripBlueZError) {
        guard await connection.perform({ [self] () -> Bool in
            handlerID = connection.addMessageHandler { [self] message in handle(message) }
            connection.onClose { [self] in
                let pending = waiters
                waiters.removeAll()
                for release in pending.values { release() }
            }
            return true
        }) != nil else { throw .closed }
        for rule in Self.matchRules { try await connection.addMatch(rule) }

        let owner: String?
        do {
            let reply = try await connection.call(
                "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetNameOwner",
                [.string("org.bluez")], timeout: .seconds(5))
            owner = reply.first?.stringValue
        } catch .methodFailed(_, _, "org.freedesktop.DBus.Error.NameHasNoOwner", _) {
            owner = nil
        }
        guard let owner else { return }
        let snapshot = try await Self.managedObjects(connection)
        _ = await connection.perform { [self] in
            // A NameOwnerChanged may have arrived meanwhile; only apply if nothing newer started a rebuild.
            if generation == 0 {
                bluezOwner = bluezOwner ?? owner
                objects = snapshot
            }
        }
    }

    private static func managedObjects(_ connection: BusConnection) async throws(GripBlueZError) -> [ObjectPath: ObjectInterfaces] {
        let reply = try await connection.call(
            "org.bluez", "/", "org.freedesktop.DBus.ObjectManager", "GetManagedObjects", timeout: .seconds(10))
        guard let tree = reply.first, case .dictionary(_, _, let entries) = tree else {
            throw .unexpectedReply(member: "GetManagedObjects", signature: reply.map(\.signature.rawValue).joined())
        }
        var result: [ObjectPath: ObjectInterfaces] = [:]
        for entry in entries {
            guard let path = entry.key.objectPathValue else { continue }
            result[path] = Self.interfaces(entry.value)
        }
        return result
    }

    /// `a{sa{sv}}` → interfaces, with property variants unwrapped.
    private static func interfaces(_ value: DBusValue) -> ObjectInterfaces {
        var result: ObjectInterfaces = [:]
        for (name, properties) in value.propertiesValue ?? [:] {
            result[name] = (properties.propertiesValue ?? [:]).mapValues(\.unwrapped)
        }
        return result
    }

    // MARK: Loop-thread API

    /// The interfaces of `path` (loop thread).
    func interfaces(at path: ObjectPath) -> ObjectInterfaces? { objects[path] }

    /// One property (loop thread).
    func property(_ path: ObjectPath, _ interface: String, _ name: String) -> DBusValue? {
        objects[path]?[interface]?[name]
    }

    /// Every object implementing `interface`, sorted by path (loop thread).
    func objects(implementing interface: String) -> [(path: ObjectPath, properties: [String: DBusValue])] {
        objects.compactMap { path, interfaces in interfaces[interface].map { (path, $0) } }.sorted { $0.path < $1.path }
    }

    /// The whole cache (loop thread).
    var all: [ObjectPath: ObjectInterfaces] { objects }

    /// Reads `interface`'s properties of `path` (`Properties.GetAll`) into the cache, for state bluetoothd changes
    /// without a signal; watchers see it as one `propertiesChanged`.
    ///
    /// bluetoothd 5.66 (and later) sets an LE device connected when its own ATT connection completes, answers
    /// `Connect`, and emits `Connected` only from the management event that follows: when that event is handled
    /// second ("Device … is already connected" in its log), `Connected=true` is never signalled, although `Get`
    /// says true (`src/device.c`: `att_connect_cb`, `device_add_connection`; docs/bluez.md, pitfall 14).
    /// - Throws: `.methodFailed` (the object is gone: `UnknownObject`), `.closed`.
    /// - Important: The reply is applied on the loop thread as it arrives, so a signal emitted after it still
    ///   wins; nothing is applied for a path or interface the cache no longer has, or after bluetoothd changed.
    func refresh(_ path: ObjectPath, _ interface: String) async throws(GripBlueZError) {
        guard let expected = await connection.perform({ [self] in generation }) else { throw .closed }
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Void, GripBlueZError>, Never>) in
            connection.send(
                "org.bluez", path, "org.freedesktop.DBus.Properties", "GetAll", [.string(interface)],
                timeout: .seconds(5)
            ) { [self] result in
                switch result {
                case .failure(let error):
                    continuation.resume(returning: .failure(error))
                case .success(let reply):
                    if connection.isOnLoopThread, generation == expected, objects[path]?[interface] != nil,
                       let changed = reply.first?.propertiesValue {
                        let values = changed.mapValues(\.unwrapped)
                        objects[path]?[interface]?.merge(values) { _, new in new }
                        notify(.propertiesChanged(path, interface: interface, changed: values, invalidated: []))
                    }
                    continuation.resume(returning: .success(()))
                }
            }
        }
        try result.get()
    }

    /// Calls `body` after every change (loop thread); returns an id for `removeWatcher`.
    func addWatcher(_ body: @escaping @Sendable (CacheEvent) -> Void) -> Int {
        nextWatcherID += 1
        watchers.append((nextWatcherID, body))
        return nextWatcherID
    }

    /// Loop thread.
    func removeWatcher(_ id: Int) { watchers.removeAll { $0.id == id } }

    /// Sends `.poke` to every watcher (loop thread), for waiters whose condition is not in the cache.
    func poke() { notify(.poke) }

    private func notify(_ event: CacheEvent) {
        for watcher in watchers { watcher.body(event) }
    }

    /// Waits until `check` returns a value: evaluated at once, then after every cache event, on the loop thread.
    /// Returns nil on timeout, on task cancellation and when the connection closes.
    func wait<T: Sendable>(timeout: Duration?, _ check: @escaping @Sendable (CacheEvent?) -> T?) async -> T? {
        let waiter = Waiter<T>()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<T?, Never>) in
                let accepted = connection.execute { [self] in
                    waiter.continuation = continuation
                    if waiter.cancelled { return finish(waiter, nil) }
                    if let value = check(nil) { return finish(waiter, value) }
                    waiter.watcherID = addWatcher { [self] event in
                        if !waiter.done, let value = check(event) { finish(waiter, value) }
                    }
                    waiters[waiter.watcherID!] = { [self] in finish(waiter, nil) }
                    if let timeout {
                        waiter.timerID = connection.schedule(after: timeout) { [self] in finish(waiter, nil) }
                    }
                }
                if !accepted { continuation.resume(returning: nil) }
            }
        } onCancel: {
            connection.execute { [self] in
                waiter.cancelled = true
                finish(waiter, nil)
            }
        }
    }

    private func finish<T>(_ waiter: Waiter<T>, _ value: T?) {
        guard !waiter.done, let continuation = waiter.continuation else { return }
        waiter.done = true
        if let id = waiter.watcherID {
            removeWatcher(id)
            waiters.removeValue(forKey: id)
        }
        if let id = waiter.timerID { connection.cancelTimer(id) }
        continuation.resume(returning: value)
    }

    // MARK: Signals

    private func handle(_ message: OwnedMessage) {
        guard message.type == DBusMessageType.signal, let member = message.member else { return }
        switch (message.interface, member) {
        case ("org.freedesktop.DBus.Local", "Disconnected"):
            // The bus itself went away (dbus-daemon restart): nothing will arrive any more.
            busLost = true
            bluezOwner = nil
            objects.removeAll()
            notify(.bluezLost)
        case ("org.freedesktop.DBus", "NameOwnerChanged"):
            let arguments = message.arguments()
            guard arguments.count == 3, arguments[0].stringValue == "org.bluez" else { return }
            let newOwner = arguments[2].stringValue ?? ""
            generation += 1
            if newOwner.isEmpty {
                bluezOwner = nil
                objects.removeAll()
                notify(.bluezLost)
            } else {
                bluezOwner = newOwner
                objects.removeAll()
                rebuild(generation: generation)
            }
        case ("org.freedesktop.DBus.ObjectManager", "InterfacesAdded"):
            let arguments = message.arguments()
            guard arguments.count == 2, let path = arguments[0].objectPathValue else { return }
            let added = Self.interfaces(arguments[1])
            objects[path, default: [:]].merge(added) { _, new in new }
            notify(.interfacesAdded(path, added.keys.sorted()))
        case ("org.freedesktop.DBus.ObjectManager", "InterfacesRemoved"):
            let arguments = message.arguments()
            guard arguments.count == 2, let path = arguments[0].objectPathValue,
                  let removed = arguments[1].stringsValue, objects[path] != nil else { return }
            for interface in removed { objects[path]?.removeValue(forKey: interface) }
            if objects[path]?.isEmpty ?? false { objects.removeValue(forKey: path) }
            notify(.interfacesRemoved(path, removed))
        case ("org.freedesktop.DBus.Properties", "PropertiesChanged"):
            let arguments = message.arguments()
            guard arguments.count >= 2, let pathText = message.path, let interface = arguments[0].stringValue,
                  let changed = arguments[1].propertiesValue else { return }
            let path = ObjectPath(rawValue: pathText)
            guard objects[path]?[interface] != nil else { return }
            let values = changed.mapValues(\.unwrapped)
            let invalidated = arguments.count > 2 ? (arguments[2].stringsValue ?? []) : []
            objects[path]?[interface]?.merge(values) { _, new in new }
            for name in invalidated { objects[path]?[interface]?.removeValue(forKey: name) }
            notify(.propertiesChanged(path, interface: interface, changed: values, invalidated: invalidated))
        default:
            return
        }
    }

    private func rebuild(generation expected: Int) {
        connection.send(
            "org.bluez", "/", "org.freedesktop.DBus.ObjectManager", "GetManagedObjects", [], timeout: .seconds(10)
        ) { [self] result in
            // Runs on the loop thread (or at once if the connection is closing).
            guard connection.isOnLoopThread, generation == expected, bluezOwner != nil else { return }
            guard case .success(let reply) = result, let tree = reply.first, case .dictionary(_, _, let entries) = tree
            else { return }
            var snapshot: [ObjectPath: ObjectInterfaces] = [:]
            for entry in entries {
                guard let path = entry.key.objectPathValue else { continue }
                snapshot[path] = Self.interfaces(entry.value)
            }
            // Signals that arrived before this reply are already reflected in it.
            objects = snapshot
            notify(.bluezAppeared)
        }
    }
}

/// One pending `ObjectCache.wait`.
private final class Waiter<T: Sendable>: @unchecked Sendable {
    // SAFETY: accessed on the loop thread only.
    var continuation: CheckedContinuation<T?, Never>?
    var watcherID: Int?
    var timerID: Int?
    var done = false
    var cancelled = false
}
