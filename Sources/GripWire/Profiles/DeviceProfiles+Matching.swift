extension DeviceProfiles {
    /// The supported device an advertisement describes, if any: a profile whose name prefix starts `name` (names are
    /// specific: the Entralpi advertises the SIG Weight Scale service without speaking its format), else one whose
    /// primary service UUID is among `serviceUUIDs` (any case), so a renamed device is still found.
    /// - Parameters:
    ///   - name: the advertised or cached local name, if any.
    ///   - serviceUUIDs: advertised or resolved service UUIDs, canonical 128-bit strings.
    /// - Returns: the first matching profile in `all`, or nil for an unsupported device.
    public static func matching(name: String?, serviceUUIDs: [String]) -> (any DeviceProfile)? {
        if let name, let byName = all.first(where: { profile in profile.namePrefix.map { name.hasPrefix($0) } ?? false }) {
            return byName
        }
        let uuids = Set(serviceUUIDs.map { $0.lowercased() })
        return all.first { uuids.contains($0.serviceUUID) }
    }
}
