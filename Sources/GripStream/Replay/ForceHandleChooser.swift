import GripWire

/// How the force handle was chosen, in order of preference.
public enum ForceHandleSource: String, Sendable {
    /// `--handle` on the command line.
    case option
    /// The capture's GATT discovery maps a handle to the profile's data characteristic.
    case discovery
    /// No discovery in the capture: the notifying handle whose frames decode as the profile's.
    case content
}

/// The profile and handles a replay will use.
package struct ForceHandleChoice<Profile: DeviceProfile>: Sendable {
    package var profile: Profile
    package var handle: UInt16
    package var controlHandle: UInt16?
    package var source: ForceHandleSource
}

/// Chooses the force handle while a capture streams by, so a replay reads its file once.
///
/// Discovery sits before the notifications it describes, and a capture started mid-session has none at all, so
/// the choice is made as soon as it is certain — `--handle` or discovery once the first notification has been
/// read, or a handle that has sent ``certainAfterMatchingFrames`` frames of which at least half decode as the
/// profile's — and otherwise at the end of the capture from everything seen. Until then the caller holds the
/// events back (a few hundred at most in practice).
package struct ForceHandleChooser: Sendable {
    /// Frames matching the profile after which a handle is chosen by content without reading further.
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
        guard case .notification(_, let handle, let value, _) = event else { return }
        observeNotification(handle: handle, value: value)
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
    package func certainChoice(gatt: GATTDatabase) -> ForceHandleChoice<TindeqProgressor>? {
        guard sawNotifications else { return nil }
        let profile = TindeqProgressor()
        if option != nil || gatt.valueHandle(forCharacteristic: profile.dataCharacteristicUUID) != nil {
            return finalChoice(gatt: gatt)
        }
        return contentChoice(gatt: gatt, minimumMatching: Self.certainAfterMatchingFrames)
    }

    /// The best choice from the whole capture, or nil when nothing in it looks like a force device.
    package func finalChoice(gatt: GATTDatabase) -> ForceHandleChoice<TindeqProgressor>? {
        // Only the Progressor exists today; with more profiles this picks the one whose UUIDs or frames match.
        let profile = TindeqProgressor()
        let control = gatt.valueHandle(forCharacteristic: profile.controlCharacteristicUUID)
        if let option {
            return .init(profile: profile, handle: option, controlHandle: control, source: .option)
        }
        if let discovered = gatt.valueHandle(forCharacteristic: profile.dataCharacteristicUUID) {
            return .init(profile: profile, handle: discovered, controlHandle: control, source: .discovery)
        }
        return contentChoice(gatt: gatt, minimumMatching: 1)
    }

    /// The handle with the most notifications among those whose frames mostly decode as the profile's.
    private func contentChoice(gatt: GATTDatabase, minimumMatching: Int) -> ForceHandleChoice<TindeqProgressor>? {
        let profile = TindeqProgressor()
        let candidates = notifications.filter { _, entry in
            let matching = entry.matching[profile.identifier] ?? 0
            return matching * 2 >= entry.total && matching >= minimumMatching
        }
        guard let best = candidates.max(by: { $0.value.total < $1.value.total || ($0.value.total == $1.value.total && $0.key > $1.key) }) else {
            return nil
        }
        let control = gatt.valueHandle(forCharacteristic: profile.controlCharacteristicUUID)
        return .init(profile: profile, handle: best.key, controlHandle: control, source: .content)
    }

    /// Reads a whole capture and chooses (the daemon's replay source needs the handle before it starts).
    ///
    /// - Throws: ``ReplayError/unreadable(_:)`` when nothing could be read, ``ReplayError/noForceHandle(notifyingHandles:hasDiscovery:)``
    ///   when no handle carries force frames.
    package static func scan(path: String, option: UInt16?) throws(ReplayError) -> ForceHandleChoice<TindeqProgressor> {
        var chooser = ForceHandleChooser(option: option)
        let outcome = CaptureFile.readToEnd(path: path) { chooser.observe($0) }
        if let error = outcome.error, !chooser.sawNotifications { throw .unreadable(error) }
        guard let choice = chooser.finalChoice(gatt: outcome.summary.gatt) else {
            throw .noForceHandle(notifyingHandles: chooser.notifyingHandles, hasDiscovery: !outcome.summary.gatt.isEmpty)
        }
        return choice
    }
}
