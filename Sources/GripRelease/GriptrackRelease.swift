/// griptrack's release: the one place it is stated. `griptrack --version`, `griptrackd --version`,
/// `griptrack-hub --version`, the daemon's VERSION greeting and the MQTT device's `sw_version` all read it, and the
/// Debian package's build fails unless debian/changelog's version is this one (debian/rules, docs/packaging.md).
package enum GriptrackRelease {
    package static let version = "0.1.0"
}
