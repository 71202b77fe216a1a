extension DeviceProfiles {
    /// The supported device an advertisement describes, if any: a profile whose name prefix starts `name` or one of
    /// whose exact names it is (names are specific: the Entralpi advertises the SIG Weight Scale service without
    /// speaking its format), else one whose primary service UUID is among `serviceUUIDs` (any case), so a renamed
    /// device is still found; a generic UART service (``DeviceProfile/dataServiceIsShared``) identifies nothing.
    /// - Parameters:
    ///   - name: the advertised or cached local name, if any.
    ///   - serviceUUIDs: advertised or resolved service UUIDs, canonical 128-bit strings.
    /// - Returns: the first matching profile in `all`, or nil for an unsupported device.
    public static func matching(name: String?, serviceUUIDs: [String]) -> (any DeviceProfile)? {
        if let name, let byName = all.first(where: { $0.matchesName(name) }) {
            return byName
        }
        let uuids = Set(serviceUUIDs.map { $0.lowercased() })
        return all.first { !$0.dataServiceIsShared && uuids.contains($0.serviceUUID) }
    }
}
