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

/// How one profile fared on one handle's notifications while the force handle was being chosen from content.
public struct ProfileTrial: Sendable, Equatable {
    /// The profile's identifier (`progressor`).
    public var profile: String
    /// Notifications its decoder took (samples, a device message, or a piece of a frame still to come).
    public var decoded = 0
    /// Notifications its decoder refused, by reason.
    public var rejected: [FrameRejection: Int] = [:]

    public init(profile: String, decoded: Int = 0, rejected: [FrameRejection: Int] = [:]) {
        self.profile = profile
        self.decoded = decoded
        self.rejected = rejected
    }

    /// decoded + refused.
    public var total: Int { decoded + rejected.values.reduce(0, +) }

    /// Whether the profile decodes enough of the handle's notifications to be chosen for it
    /// (``ForceHandleChooser/minimumDecodedShare``).
    public var qualifies: Bool {
        decoded > 0 && Double(decoded) >= ForceHandleChooser.minimumDecodedShare * Double(total)
    }

    /// `forceboard 1 of 6 (17 %; 5 length_mismatch)`: what a refusal says about this profile.
    public var summary: String {
        let percent = total == 0 ? 0 : Int((100 * Double(decoded) / Double(total)).rounded(.down))
        let reasons = rejected.sorted { $0.value > $1.value || ($0.value == $1.value && $0.key < $1.key) }
            .map { "\($0.value) \($0.key.rawValue)" }
        return "\(profile) \(decoded) of \(total) (\(percent) %" + (reasons.isEmpty ? ")" : "; " + reasons.joined(separator: ", ") + ")")
    }
}

/// What was tried on one notifying handle.
public struct HandleTrials: Sendable, Equatable {
    public var handle: UInt16
    /// Notifications seen on it.
    public var notifications: Int
    /// One per profile in `DeviceProfiles.all`, in the table's order.
    public var trials: [ProfileTrial]
}

/// Chooses the device profile and its force handle while a capture streams by, so a replay reads its file once.
///
/// Discovery sits before the notifications it describes, and a capture started mid-session has none at all, so
/// the choice is made as soon as it is certain — `--handle` or discovery once the first notification has been
/// read, or a handle whose first ``certainAfterFrames`` notifications one profile's decoder mostly takes — and
/// otherwise at the end of the capture from everything seen. Until then the caller holds the events back (a few
/// hundred at most in practice).
///
/// **Content.** Without a discovery that names a device, every profile in `DeviceProfiles.all` runs its own decoder
/// (a fresh one per handle, fed the handle's notifications in order, so a device whose frames span notifications is
/// judged as it is decoded) over every notifying handle. A profile is chosen for a handle only when its decoder takes
/// at least ``minimumDecodedShare`` (90 %) of the handle's notifications: a stream that a profile mostly rejects is
/// never assigned to it, however many of its frames have the right length (docs/devices.md, "Choosing a profile from
/// the data"). Among the qualifying profiles the one that takes the most wins, ties going to the earlier profile in
/// the table; among qualifying handles, the one with the most notifications. When nothing qualifies, the refusal
/// lists every handle, every profile tried on it, and what that profile's decoder said.
///
/// A profile whose data characteristic is a generic UART other products use too (``DeviceProfile/dataServiceIsShared``:
/// the CTS500's HM-10 `FFE1`, the Motherboard's Nordic UART, Climbro's Microchip UART) is never chosen from discovery
/// alone: it must pass on content like a capture without discovery.
package struct ForceHandleChooser: Sendable {
    /// Notifications on a handle after which it is chosen by content without reading further (when a profile
    /// qualifies on them).
    package static let certainAfterFrames = 32
    /// The share of a handle's notifications a profile's decoder must take for the profile to be chosen from content.
    package static let minimumDecodedShare = 0.9

    /// One profile's decoder running over one handle.
    private struct Trial: Sendable {
        let profile: any DeviceProfile
        var decoder: any FrameDecoder
        var result: ProfileTrial

        init(profile: any DeviceProfile) {
            self.profile = profile
            decoder = profile.makeDecoder()
            result = ProfileTrial(profile: profile.identifier)
        }

        mutating func feed(_ value: UnsafeRawBufferPointer, hostMicros: Int64) {
            let outcome = unsafe decoder.decode(value, hostMicros: hostMicros) { _ in }
            switch outcome {
            case .samples, .event, .consumed:
                result.decoded += 1
            case .rejected(let reason):
                // Raw counts without a coefficient decode to nothing finite; the frame's shape is all there is to judge.
                if reason == .nonFinite, profile.lacksCalibration, unsafe profile.looksLikeDataFrame(value) {
                    result.decoded += 1
                } else {
                    result.rejected[reason, default: 0] += 1
                }
            }
        }
    }

    private let option: UInt16?
    /// Per notifying handle: notifications seen, and every profile's decoder over them.
    private var notifications: [UInt16: (total: Int, trials: [Trial])] = [:]

    package init(option: UInt16?) { self.option = option }

    /// Every handle that notified so far, ascending.
    package var notifyingHandles: [UInt16] { notifications.keys.sorted() }
    /// Whether any notification was seen.
    package var sawNotifications: Bool { !notifications.isEmpty }

    /// What every profile's decoder made of every notifying handle so far, handles ascending.
    package var trials: [HandleTrials] {
        notifyingHandles.map { handle in
            let entry = notifications[handle]!
            return HandleTrials(handle: handle, notifications: entry.total, trials: entry.trials.map(\.result))
        }
    }

    /// Counts one capture event (only notifications matter).
    package mutating func observe(_ event: CaptureEvent) {
        guard let input = RingInput(event), input.kind == .notification else { return }
        unsafe input.value.withUnsafeBytes { bytes in
            unsafe observeNotification(handle: input.handle, hostMicros: input.hostMicros, value: bytes)
        }
    }

    /// Counts one notification and runs every profile's decoder over it.
    ///
    /// - Parameters:
    ///   - hostMicros: when the host received it (host-stamped decoders time their samples with it).
    ///   - value: the notification's bytes; read only during the call.
    package mutating func observeNotification(handle: UInt16, hostMicros: Int64, value: UnsafeRawBufferPointer) {
        var entry = notifications[handle] ?? (0, DeviceProfiles.all.map(Trial.init(profile:)))
        notifications[handle] = nil
        entry.total += 1
        for index in entry.trials.indices { unsafe entry.trials[index].feed(value, hostMicros: hostMicros) }
        notifications[handle] = entry
    }

    /// The choice, if the events observed so far make it certain; `gatt` is the layout discovered so far.
    package func certainChoice(gatt: GATTDatabase) -> ForceHandleChoice? {
        guard sawNotifications else { return nil }
        if option != nil || Self.discovered(in: gatt) != nil { return finalChoice(gatt: gatt) }
        return contentChoice(gatt: gatt, minimumNotifications: Self.certainAfterFrames)
    }

    /// The best choice from the whole capture, or nil when nothing in it is a supported device's stream.
    package func finalChoice(gatt: GATTDatabase) -> ForceHandleChoice? {
        let discovered = Self.discovered(in: gatt)
        if let option {
            guard let profile = discovered?.profile ?? bestProfile(forHandle: option) else { return nil }
            return .init(profile: profile, handle: option, gatt: gatt, source: .option)
        }
        if let discovered {
            return .init(profile: discovered.profile, handle: discovered.handle, gatt: gatt, source: .discovery)
        }
        return contentChoice(gatt: gatt, minimumNotifications: 1)
    }

    /// The first profile in the table whose data characteristic the discovery shows, with its value handle; a
    /// profile on a generic UART (``DeviceProfile/dataServiceIsShared``) is left to content.
    private static func discovered(in gatt: GATTDatabase) -> (profile: any DeviceProfile, handle: UInt16)? {
        for profile in DeviceProfiles.all where !profile.dataServiceIsShared {
            if let handle = gatt.valueHandle(forCharacteristic: profile.dataCharacteristicUUID) { return (profile, handle) }
        }
        return nil
    }

    /// The handle with the most notifications among those a profile qualifies for.
    private func contentChoice(gatt: GATTDatabase, minimumNotifications: Int) -> ForceHandleChoice? {
        let candidates = notifications.compactMap { handle, entry in
            entry.total >= minimumNotifications
                ? bestProfile(forHandle: handle).map { (handle, entry.total, $0) } : nil
        }
        guard let best = candidates.max(by: { $0.1 < $1.1 || ($0.1 == $1.1 && $0.0 > $1.0) }) else { return nil }
        let source: ForceHandleSource = best.2.transport == .advertisement ? .advertisement : .content
        return .init(profile: best.2, handle: best.0, gatt: gatt, source: source)
    }

    /// The qualifying profile whose decoder took most of the handle's notifications; ties go to the earlier profile
    /// in the table.
    private func bestProfile(forHandle handle: UInt16) -> (any DeviceProfile)? {
        guard let entry = notifications[handle] else { return nil }
        var best: Trial?
        for trial in entry.trials where trial.result.qualifies {
            if trial.result.decoded > (best?.result.decoded ?? 0) { best = trial }
        }
        return best?.profile
    }

    /// The trials a refusal reports: those on the `--handle` one when it was given, else on every handle.
    package var refusalTrials: [HandleTrials] {
        let all = trials
        guard let option else { return all }
        return all.filter { $0.handle == option }
    }

    /// Reads a whole capture and chooses (the daemon's replay source needs the handle before it starts).
    ///
    /// - Throws: ``ReplayError/unreadable(_:)`` when nothing could be read, ``ReplayError/noForceHandle(notifyingHandles:hasDiscovery:trials:)``
    ///   when no handle carries force frames (with what every profile made of every handle).
    package static func scan(path: String, option: UInt16?) throws(ReplayError) -> ForceHandleChoice {
        var chooser = ForceHandleChooser(option: option)
        let outcome = CaptureFile.readToEnd(path: path) { chooser.observe($0) }
        if let error = outcome.error, !chooser.sawNotifications { throw .unreadable(error) }
        guard let choice = chooser.finalChoice(gatt: outcome.summary.gatt) else {
            throw .noForceHandle(
                notifyingHandles: chooser.notifyingHandles, hasDiscovery: !outcome.summary.gatt.isEmpty,
                trials: chooser.refusalTrials)
        }
        return choice
    }
}
