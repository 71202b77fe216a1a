extension DeviceProfiles {
    /// The supported device an advertisement describes, if any: a profile whose primary service UUID is among
    /// `serviceUUIDs` (any case), else one whose name prefix starts `name`.
    /// - Parameters:
    ///   - name: the advertised or cached local name, if any.
    ///   - serviceUUIDs: advertised or resolved service UUIDs, canonical 128-bit strings.
    /// - Returns: the first matching profile in `all`, or nil for an unsupported device.
    public static func matching(name: String?, serviceUUIDs: [String]) -> (any DeviceProfile)? {
        let uuids = Set(serviceUUIDs.map { $0.lowercased() })
        if let byService = all.first(where: { uuids.contains($0.serviceUUID) }) { return byService }
        guard let name else { return nil }
        return all.first { name.hasPrefix($0.namePrefix) }
    }
}
