/// A running LE discovery that hands one company's manufacturer data to a callback as BlueZ reports it
/// (`BlueZClient.watchManufacturerData`). Stop it with ``stop()``; closing the client also ends it.
public final class AdvertisementWatch: Sendable {
    private let client: BlueZClient
    private let adapter: ObjectPath
    private let watcherID: Int

    init(client: BlueZClient, adapter: ObjectPath, watcherID: Int) {
        self.client = client
        self.adapter = adapter
        self.watcherID = watcherID
    }

    /// Returns when the watch can deliver nothing more: bluetoothd stopped (its discovery sessions died with it) or
    /// the bus connection closed, or the calling task was cancelled. The caller then starts a new watch, on a new
    /// client if the bus went away.
    public func ended() async {
        _ = await client.cache.wait(timeout: nil) { [cache = client.cache] event in
            if cache.busLost || cache.bluezOwner == nil { return true }
            if case .bluezLost? = event { return true }
            return nil
        }
    }

    /// Stops delivering data and ends this client's discovery session.
    public func stop() async {
        _ = await client.connection.perform { [client, watcherID] in client.cache.removeWatcher(watcherID) }
        _ = try? await client.connection.call(
            BlueZ.service, adapter, BlueZ.adapter, "StopDiscovery", timeout: .seconds(5))
    }
}

extension BlueZClient {
    /// Starts an LE discovery that reports every advertisement (`DuplicateData: true`: without it bluetoothd
    /// reports a device's data only when it changes, and a steady hold on a scale would look like silence) and
    /// calls `onData` with the manufacturer data under `manufacturerID` of each matching device, as BlueZ updates
    /// the device's `ManufacturerData` property.
    ///
    /// - Parameters:
    ///   - manufacturerID: the company id whose data is wanted (e.g. 0x0100).
    ///   - criteria: which devices count (address and/or name prefix); all given fields must match.
    ///   - name: `hci0`-style adapter name, nil for the first adapter.
    ///   - onData: called on the D-Bus thread with the device, the data after the company id and the host time (µs,
    ///     `DeviceConnection.hostMicros()`); it must return quickly.
    /// - Returns: the running watch.
    /// - Throws: the adapter errors of `adapter(_:)`; `.methodFailed` when BlueZ refuses to scan.
    public func watchManufacturerData(
        _ manufacturerID: UInt16, matching criteria: DeviceCriteria, adapter name: String? = nil,
        onData: @escaping @Sendable (_ device: DeviceInfo, _ data: [UInt8], _ hostMicros: Int64) -> Void
    ) async throws(GripBlueZError) -> AdvertisementWatch {
        let adapter = try await adapter(name)
        try await connection.call(
            BlueZ.service, adapter.path, BlueZ.adapter, "SetDiscoveryFilter",
            [.properties(["Transport": .string("le"), "DuplicateData": .boolean(true)])], timeout: .seconds(5))
        let watcherID = await connection.perform { [cache] in
            cache.addWatcher { [cache] event in
                let path: ObjectPath
                switch event {
                case .propertiesChanged(let changedPath, BlueZ.device, let changed, _) where changed["ManufacturerData"] != nil:
                    path = changedPath
                case .interfacesAdded(let addedPath, let interfaces) where interfaces.contains(BlueZ.device):
                    path = addedPath
                default:
                    return
                }
                guard let properties = cache.interfaces(at: path)?[BlueZ.device],
                      let device = DeviceInfo(path: path, properties: properties), device.adapter == adapter.path,
                      criteria.matches(device),
                      let data = Self.manufacturerData(properties["ManufacturerData"], company: manufacturerID)
                else { return }
                onData(device, data, DeviceConnection.hostMicros())
            }
        }
        guard let watcherID else { throw .closed }
        do {
            try await connection.call(BlueZ.service, adapter.path, BlueZ.adapter, "StartDiscovery", timeout: .seconds(5))
        } catch {
            switch error {
            case .methodFailed(_, _, BlueZ.Error.inProgress, _): break  // this client already scans
            case .methodFailed(_, _, BlueZ.Error.notReady, _):
                _ = await connection.perform { [cache] in cache.removeWatcher(watcherID) }
                throw .adapterPoweredOff(adapter: adapter.name)
            default:
                _ = await connection.perform { [cache] in cache.removeWatcher(watcherID) }
                throw error
            }
        }
        return AdvertisementWatch(client: self, adapter: adapter.path, watcherID: watcherID)
    }

    /// The bytes under `company` in a `ManufacturerData` value (`a{qv}`, each value `ay`).
    static func manufacturerData(_ value: DBusValue?, company: UInt16) -> [UInt8]? {
        guard case .dictionary(_, _, let entries)? = value?.unwrapped else { return nil }
        return entries.first { $0.key.integerValue == Int64(company) }?.value.bytesValue
    }
}
