import GripConfig
import GripEntitlements
import GripStore

extension DaemonConfiguration {
    /// Applies the configuration file's `[device]`, `[recording]` and `[entitlements]` settings — the one mapping
    /// from `griptrack.toml` to the daemon, shared by `griptrackd` and the CLI's in-process daemon
    /// (`griptrack record --direct/--replay`).
    /// - Parameters:
    ///   - file: The parsed configuration.
    ///   - deviceAddress: `--device`, which overrides `[device] address`.
    package mutating func apply(_ file: GriptrackConfig, deviceAddress: String?) {
        sessionGap = .milliseconds(Int64((file.recording.sessionGapSeconds * 1000).rounded()))
        radio = RadioConfiguration(
            profile: file.device.profile, address: deviceAddress?.uppercased() ?? file.device.address, namePrefix: file.device.namePrefix,
            adapter: file.device.adapter, notifyMode: file.device.notify == .acquire ? .acquire : .start,
            sleepWhenIdle: file.device.sleepWhenIdle)
        access = AccessContext(bypass: file.entitlements.bypass, policy: access.policy)
        self.file = file
    }
}
