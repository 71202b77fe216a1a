/// A connection to bluetoothd: one private bus connection with its own D-Bus thread, and the `ObjectCache` of
/// BlueZ's objects. Create one per process, then a `DeviceConnection` per device.
///
/// The bus address comes from `DBUS_SYSTEM_BUS_ADDRESS` when set (tests), else the system bus.
public final class BlueZClient: Sendable {
    let connection: BusConnection
    let cache: ObjectCache

    private init(connection: BusConnection, cache: ObjectCache) {
        self.connection = connection
        self.cache = cache
    }

    /// Connects to the bus, subscribes to BlueZ's signals, then loads its objects.
    ///
    /// bluetoothd need not be running yet: the cache fills when it appears.
    /// - Parameter busAddress: a D-Bus address; nil for `DBUS_SYSTEM_BUS_ADDRESS` or the system bus.
    /// - Throws: `GripBlueZError.busUnavailable` when the bus cannot be reached.
    public static func connect(busAddress: String? = nil) async throws(GripBlueZError) -> BlueZClient {
        let connection = try BusConnection.open(address: busAddress)
        let cache = ObjectCache(connection: connection)
        do {
            try await cache.start()
        } catch {
            connection.close()
            throw error
        }
        return BlueZClient(connection: connection, cache: cache)
    }

    /// This client's unique bus name (BlueZ keys notify and discovery sessions by it).
    public var uniqueName: String { connection.uniqueName }

    /// Closes the bus connection: BlueZ ends this client's notify and discovery sessions. Idempotent; also done
    /// when the client is released.
    /// - Important: Stop every `DeviceConnection` first (their cleanup needs the connection).
    public func close() { connection.close() }

    deinit { connection.close() }

    /// Checks that bluetoothd runs and the adapter is present and powered.
    /// - Parameter name: `hci0`-style name, or nil for the first adapter.
    /// - Throws: `.bluetoothdNotRunning`, `.noAdapter`, `.adapterPoweredOff` (each says what to do), `.closed`.
    public func adapter(_ name: String? = nil) async throws(GripBlueZError) -> AdapterInfo {
        let result = await connection.perform { [cache] in Self.findPoweredAdapter(name, in: cache) }
        guard let result else { throw .closed }
        return try result.get()
    }

    /// Loop thread: `findAdapter`, and an adapter that is off is an error too.
    static func findPoweredAdapter(_ name: String?, in cache: ObjectCache) -> Result<AdapterInfo, GripBlueZError> {
        findAdapter(name, in: cache).flatMap { adapter in
            adapter.powered ? .success(adapter) : .failure(.adapterPoweredOff(adapter: adapter.name))
        }
    }

    /// Loop thread.
    static func findAdapter(_ name: String?, in cache: ObjectCache) -> Result<AdapterInfo, GripBlueZError> {
        guard cache.bluezOwner != nil else { return .failure(.bluetoothdNotRunning) }
        let adapters = cache.objects(implementing: BlueZ.adapter)
        let match = adapters.first { entry in
            name == nil || entry.path.rawValue.split(separator: "/").last.map(String.init) == name
        }
        guard let match else { return .failure(.noAdapter(requested: name)) }
        return .success(AdapterInfo(
            path: match.path,
            name: match.path.rawValue.split(separator: "/").last.map(String.init) ?? match.path.rawValue,
            address: match.properties["Address"]?.stringValue ?? "",
            powered: match.properties["Powered"]?.boolValue ?? false,
            discovering: match.properties["Discovering"]?.boolValue ?? false))
    }

    /// Every device BlueZ currently exports, sorted by path.
    public func devices() async -> [DeviceInfo] {
        await connection.perform { [cache] in Self.devices(in: cache, adapter: nil) } ?? []
    }

    /// Loop thread.
    static func devices(in cache: ObjectCache, adapter: ObjectPath?) -> [DeviceInfo] {
        cache.objects(implementing: BlueZ.device).compactMap { DeviceInfo(path: $0.path, properties: $0.properties) }
            .filter { adapter == nil || $0.adapter == adapter }
    }

    /// Finds a device: one BlueZ already exports that matches is returned at once; otherwise an LE discovery runs
    /// (`SetDiscoveryFilter` with `Transport: le` and the service UUID, then `StartDiscovery`) until a matching
    /// device appears or `timeout` passes, and is always stopped again.
    /// - Parameters:
    ///   - criteria: address, name prefix and/or advertised service UUID; all given fields must match.
    ///   - adapter: `hci0`-style name, nil for the first adapter.
    ///   - timeout: how long to scan.
    /// - Returns: the matching device with the strongest RSSI among those seen when it was found.
    /// - Throws: `.deviceNotFound` after `timeout`; the adapter errors of `adapter(_:)`; `.methodFailed` when BlueZ
    ///   refuses to scan.
    public func discover(
        _ criteria: DeviceCriteria, adapter name: String? = nil, timeout: Duration = .seconds(20)
    ) async throws(GripBlueZError) -> DeviceInfo {
        try await discover(anyOf: [criteria], adapter: name, timeout: timeout)
    }

    /// Finds a device matching any of `criteria`, earlier criteria first (a device named as configured wins over one
    /// that only advertises the service). One discovery runs for the whole wait and is stopped at the end; griptrack
    /// sleeps in between, woken only by what BlueZ reports, so a daemon waiting for a device that is out of range
    /// costs no periodic wake-ups and never restarts the scan.
    /// - Parameters:
    ///   - criteria: each one's given fields must all match; the UUID filter is their union when every criterion
    ///     names a service, else none (a name is only seen without one).
    ///   - adapter: `hci0`-style name, nil for the first adapter.
    ///   - timeout: how long to scan; nil waits until a device appears or the task is cancelled.
    /// - Throws: `.deviceNotFound` after `timeout`; the adapter errors of `adapter(_:)` at the start and when
    ///   bluetoothd or the adapter goes away during the wait; `.methodFailed` when BlueZ refuses to scan; `.closed`
    ///   when cancelled or the connection closes.
    public func discover(
        anyOf criteria: [DeviceCriteria], adapter name: String? = nil, timeout: Duration?
    ) async throws(GripBlueZError) -> DeviceInfo {
        let adapter = try await adapter(name)
        let outcome: @Sendable (ObjectCache) -> Result<DeviceInfo, GripBlueZError>? = { cache in
            if case .failure(let error) = Self.findPoweredAdapter(name, in: cache) { return .failure(error) }
            let seen = Self.devices(in: cache, adapter: adapter.path)
            for candidate in criteria {
                if let best = seen.filter(candidate.matches).max(by: { ($0.rssi ?? -127) < ($1.rssi ?? -127) }) {
                    return .success(best)
                }
            }
            return nil
        }
        if case .success(let known)?? = await connection.perform({ [cache] in outcome(cache) }) { return known }

        var filter: [String: DBusValue] = ["Transport": .string("le")]
        let uuids = criteria.compactMap { $0.serviceUUID?.lowercased() }
        if !uuids.isEmpty, uuids.count == criteria.count { filter["UUIDs"] = .strings(uuids) }
        try await connection.call(BlueZ.service, adapter.path, BlueZ.adapter, "SetDiscoveryFilter",
                                  [.properties(filter)], timeout: .seconds(5))
        do {
            try await connection.call(BlueZ.service, adapter.path, BlueZ.adapter, "StartDiscovery", timeout: .seconds(5))
        } catch .methodFailed(_, _, BlueZ.Error.inProgress, _) {
            // This client already has a discovery session.
        } catch .methodFailed(_, _, BlueZ.Error.notReady, _) {
            throw .adapterPoweredOff(adapter: adapter.name)
        }
        let found = await cache.wait(timeout: timeout) { [cache] _ in outcome(cache) }
        _ = try? await connection.call(BlueZ.service, adapter.path, BlueZ.adapter, "StopDiscovery", timeout: .seconds(5))
        switch found {
        case .success(let device)?: return device
        case .failure(let error)?: throw error
        case nil:
            guard let timeout, !Task.isCancelled else { throw .closed }
            throw .deviceNotFound(criteria: DeviceCriteria.describe(anyOf: criteria), seconds: timeout.seconds)
        }
    }
}
