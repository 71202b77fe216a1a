import GripWire

/// How the force handle was chosen, in order of preference.
public enum ForceHandleSource: String, Sendable {
    /// `--handle` on the command line.
    case option
    /// The capture's GATT discovery maps a handle to the profile's data characteristic.
    case discovery
    /// No discovery in the capture: the one notifying handle whose frames decode as the profile's.
    case content
}

/// The profile and handles a replay will use.
package struct ForceHandleChoice<Profile: DeviceProfile> {
    package var profile: Profile
    package var handle: UInt16
    package var controlHandle: UInt16?
    package var source: ForceHandleSource
}

/// A first, cheap pass over a capture: its GATT map and which handles notify what, so the force handle can be
/// chosen before the replay starts (discovery may sit anywhere before the first notification, and a capture
/// started mid-session has none at all).
package struct CaptureSurvey {
    package var gatt = GATTDatabase()
    var datalink: UInt32?
    var records = 0
    var bytes: Int64 = 0
    /// Per notifying handle: notifications seen, and how many of them looked like each profile's data frames.
    var notifications: [UInt16: (total: Int, matching: [String: Int])] = [:]

    package var notifyingHandles: [UInt16] { notifications.keys.sorted() }

    package static func scan(path: String) throws(ReplayError) -> CaptureSurvey {
        var survey = CaptureSurvey()
        do {
            let summary = try CaptureFile.read(path: path) { event in
                guard case .notification(_, let handle, let value, _) = event else { return }
                var entry = survey.notifications[handle] ?? (0, [:])
                entry.total += 1
                for profile in DeviceProfiles.all where profile.looksLikeDataFrame(value) {
                    entry.matching[profile.identifier, default: 0] += 1
                }
                survey.notifications[handle] = entry
            }
            survey.gatt = summary.gatt
            survey.datalink = summary.datalink.rawValue
            survey.records = summary.records
            survey.bytes = summary.bytes
        } catch {
            // A capture damaged after its first records still replays up to the damage; one that yields
            // nothing at all is unreadable.
            if survey.notifications.isEmpty { throw .unreadable(error) }
        }
        return survey
    }

    /// The profile and handle to replay with, or nil when nothing in the capture looks like a force device.
    package func chooseForceHandle(option: UInt16?) -> ForceHandleChoice<TindeqProgressor>? {
        // Only the Progressor exists today; with more profiles this picks the one whose UUIDs or frames match.
        let profile = TindeqProgressor()
        let control = gatt.valueHandle(forCharacteristic: profile.controlCharacteristicUUID)
        if let option {
            return .init(profile: profile, handle: option, controlHandle: control, source: .option)
        }
        if let discovered = gatt.valueHandle(forCharacteristic: profile.dataCharacteristicUUID) {
            return .init(profile: profile, handle: discovered, controlHandle: control, source: .discovery)
        }
        let candidates = notifications.filter { _, entry in
            let matching = entry.matching[profile.identifier] ?? 0
            return matching * 2 >= entry.total && matching > 0
        }
        guard let best = candidates.max(by: { $0.value.total < $1.value.total || ($0.value.total == $1.value.total && $0.key > $1.key) }) else {
            return nil
        }
        return .init(profile: profile, handle: best.key, controlHandle: control, source: .content)
    }
}
