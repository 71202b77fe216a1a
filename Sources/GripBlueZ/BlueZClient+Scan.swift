extension BlueZClient {
    /// Runs an LE discovery for `duration`, then lists every device BlueZ exports on the adapter, with the RSSI
    /// each advertised while the scan ran (BlueZ drops RSSIs when discovery stops). The scan is always stopped.
    /// - Parameters:
    ///   - duration: how long to scan.
    ///   - name: `hci0`-style adapter name, nil for the first adapter.
    /// - Returns: the adapter's devices, sorted by path.
    /// - Throws: the adapter errors of `adapter(_:)`; `.methodFailed` when BlueZ refuses to scan.
    public func scan(for duration: Duration, adapter name: String? = nil) async throws(GripBlueZError) -> [DeviceInfo] {
        let adapter = try await adapter(name)
        try await connection.call(BlueZ.service, adapter.path, BlueZ.adapter, "SetDiscoveryFilter",
                                  [.properties(["Transport": .string("le")])], timeout: .seconds(5))
        do {
            try await connection.call(BlueZ.service, adapter.path, BlueZ.adapter, "StartDiscovery", timeout: .seconds(5))
        } catch {
            switch error {
            case .methodFailed(_, _, BlueZ.Error.inProgress, _): break  // this client already scans
            case .methodFailed(_, _, BlueZ.Error.notReady, _): throw .adapterPoweredOff(adapter: adapter.name)
            default: throw error
            }
        }
        try? await Task.sleep(for: duration)
        let seen = await connection.perform { [cache] in Self.devices(in: cache, adapter: adapter.path) } ?? []
        _ = try? await connection.call(BlueZ.service, adapter.path, BlueZ.adapter, "StopDiscovery", timeout: .seconds(5))
        return seen
    }
}
