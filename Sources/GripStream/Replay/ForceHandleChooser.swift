import GripWire

/// How the force handle was chosen, in order of preference.
public enum ForceHandleSource: String, Sendable {
    /// `--handle` on the command line.
    case option
    /// The capture's GATT discovery maps a handle to the profile's data characteristic.
    case discovery
    /// No discovery in the capture: the notifying handle whose frames decode as the profile's.
    case content
    /// An advertising device: its manufacturer data in the capture's advertising reports.
    case advertisement
}

/// The profile and handles a replay will use.
package struct ForceHandleChoice: Sendable {
    package var profile: any DeviceProfile
    package var handle: UInt16
    package var controlHandle: UInt16?
    package var source: ForceHandleSource

    init(profile: any DeviceProfile, handle: UInt16, gatt: GATTDatabase, source: ForceHandleSource) {
        self.profile = profile
        self.handle = handle
        controlHandle = profile.controlCharacteristicUUID.flatMap { gatt.valueHandle(forCharacteristic: $0) }
        self.source = source
    }
}

/// Chooses the device profile and its force handle while a capture streams by, so a replay reads its file once.
///
/// Discovery sits before the notifications it describes, and a capture started mid-session has none at all, so
/// the choice is made as soon as it is certain — `--handle` or discovery once the first notification has been
/// read, or a handle that has sent ``certainAfterMatchingFrames`` frames of which at least half decode as one
/// profile's — and otherwise at the end of the capture from everything seen. Until then the caller holds the
/// events back (a few hundred at most in practice). Every profile in `DeviceProfiles.all` is a candidate: the one
/// whose data characteristic the discovery shows, else the one whose frame shape the notifications have.
package struct ForceHandleChooser: Sendable {
    /// Frames matching a profile after which a handle is chosen by content without reading further.
    package static let certainAfterMatchingFrames = 32

    private let option: UInt16?
    /// Per notifying handle: notifications seen, and how many of them looked like each profile's data frames.
    private var notifications: [UInt16: (total: Int, matching: [String: Int])] = [:]

    package init(option: UInt16?) { self.option = option }

    /// Every handle that notified so far, ascending.
    package var notifyingHandles: [UInt16] { notifications.keys.sorted() }
    /// Whether any notification was seen.
    package var sawNotifications: Bool { !notifications.isEmpty }

    /// Counts one capture event (only notifications matter).
    package mutating func observe(_ event: CaptureEvent) {
        guard let input = RingInput(event), input.kind == .notification else { return }
        observeNotification(handle: input.handle, value: input.value)
    }

    /// Counts one notification, given as its handle and value bytes (of a borrowed or an owned event).
    package mutating func observeNotification(handle: UInt16, value: some Collection<UInt8>) {
        var entry = notifications[handle] ?? (0, [:])
        entry.total += 1
        for profile in DeviceProfiles.all where profile.looksLikeDataFrame(value) {
            entry.matching[profile.identifier, default: 0] += 1
        }
        notifications[handle] = entry
    }

    /// The choice, if the events observed so far make it certain; `gatt` is the layout discovered so far.
    package func certainChoice(gatt: GATTDatabase) -> ForceHandleChoice? {
        guard sawNotifications else { return nil }
        if option != nil || Self.discovered(in: gatt) != nil { return finalChoice(gatt: gatt) }
        return contentChoice(gatt: gatt, minimumMatching: Self.certainAfterMatchingFrames)
    }

    /// The best choice from the whole capture, or nil when nothing in it looks like a force device.
    package func finalChoice(gatt: GATTDatabase) -> ForceHandleChoice? {
        let discovered = Self.discovered(in: gatt)
        if let option {
            let profile = discovered?.profile ?? bestProfile(forHandle: option, minimumMatching: 0) ?? DeviceProfiles.all[0]
            return .init(profile: profile, handle: option, gatt: gatt, source: .option)
        }
        if let discovered {
            return .init(profile: discovered.profile, handle: discovered.handle, gatt: gatt, source: .discovery)
        }
        return contentChoice(gatt: gatt, minimumMatching: 1)
    }

    /// The first profile in the table whose data characteristic the discovery shows, with its value handle.
    private static func discovered(in gatt: GATTDatabase) -> (profile: any DeviceProfile, handle: UInt16)? {
        for profile in DeviceProfiles.all {
            if let handle = gatt.valueHandle(forCharacteristic: profile.dataCharacteristicUUID) { return (profile, handle) }
        }
        return nil
    }

    /// The handle with the most notifications among those whose frames mostly decode as some profile's.
    private func contentChoice(gatt: GATTDatabase, minimumMatching: Int) -> ForceHandleChoice? {
        let candidates = notifications.compactMap { handle, entry in
            bestProfile(forHandle: handle, minimumMatching: minimumMatching).map { (handle, entry.total, $0) }
        }
        guard let best = candidates.max(by: { $0.1 < $1.1 || ($0.1 == $1.1 && $0.0 > $1.0) }) else { return nil }
        let source: ForceHandleSource = best.2.transport == .advertisement ? .advertisement : .content
        return .init(profile: best.2, handle: best.0, gatt: gatt, source: source)
    }

    /// The profile most of whose frames the handle's notifications look like (at least half of them, and at least
    /// `minimumMatching`); ties go to the earlier profile in the table.
    private func bestProfile(forHandle handle: UInt16, minimumMatching: Int) -> (any DeviceProfile)? {
        guard let entry = notifications[handle] else { return nil }
        var best: (profile: any DeviceProfile, matching: Int)?
        for profile in DeviceProfiles.all {
            let matching = entry.matching[profile.identifier] ?? 0
            guard matching * 2 >= entry.total, matching >= max(minimumMatching, 1) else { continue }
            if matching > (best?.matching ?? 0) { best = (profile, matching) }
        }
        return best?.profile
    }

    /// Reads a whole capture and chooses (the daemon's replay source needs the handle before it starts).
    ///
    /// - Throws: ``ReplayError/unreadable(_:)`` when nothing could be read, ``ReplayError/noForceHandle(notifyingHandles:hasDiscovery:)``
    ///   when no handle carries force frames.
    package static func scan(path: String, option: UInt16?) throws(ReplayError) -> ForceHandleChoice {
        var chooser = ForceHandleChooser(option: option)
        let outcome = CaptureFile.readToEnd(path: path) { chooser.observe($0) }
        if let error = outcome.error, !chooser.sawNotifications { throw .unreadable(error) }
        guard let choice = chooser.finalChoice(gatt: outcome.summary.gatt) else {
            throw .noForceHandle(notifyingHandles: chooser.notifyingHandles, hasDiscovery: !outcome.summary.gatt.isEmpty)
        }
        return choice
    }
}
