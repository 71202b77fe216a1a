import GripWire

/// How `griptrackd` finds and drives the device through BlueZ (the `[device]` section plus `--device`).
package struct RadioConfiguration: Sendable, Equatable {
    /// How notifications reach the daemon.
    package enum NotifyMode: String, Sendable, Equatable {
        /// `StartNotify` + `PropertiesChanged(Value)` signals (survives reconnects).
        case start
        /// `AcquireNotify` + a socket per connection (falls back to `start` when BlueZ refuses).
        case acquire
    }

    /// Which kind of device to drive: an identifier of `DeviceProfiles` (`progressor`).
    package var profile: String
    /// The device's address (`AA:BB:CC:DD:EE:FF`); nil = the first device whose name starts with `namePrefix`,
    /// else the first advertising the profile's service UUID.
    package var address: String?
    /// Advertised names that count as the device; nil = the profile's (`Progressor`).
    package var namePrefix: String?
    /// The BlueZ adapter, `hci0`-style; nil = the first one.
    package var adapter: String?
    /// StartNotify or AcquireNotify.
    package var notifyMode: NotifyMode
    /// After the session gap without an effort, also put the device to sleep (not just stop measuring).
    package var sleepWhenIdle: Bool
    /// The D-Bus address of the system bus; nil = `DBUS_SYSTEM_BUS_ADDRESS`, else the system bus (tests point this
    /// at a private bus instead of changing the process environment).
    package var busAddress: String?
    /// How often the battery voltage is asked for while streaming (also once right after START).
    package var batteryInterval: Duration = .seconds(300)
    /// Wait between attempts to reach the bus, bluetoothd, the adapter or the device.
    package var retryInterval: Duration = .seconds(2)
    /// How long one discovery scan lasts before the next attempt.
    package var discoveryTimeout: Duration = .seconds(10)
    /// An advertising device counts as gone after this long without an advertisement (`AdvertisementSilence`).
    package var advertisementSilence: Duration = .microseconds(AdvertisementSilence.defaultSilenceMicros)
    /// First wait between connect attempts (doubles up to 5 s).
    package var connectBackoff: Duration = .milliseconds(250)

    /// Creates a configuration; the defaults are the `[device]` defaults.
    /// - Parameters: See the properties.
    package init(
        profile: String = "progressor", address: String? = nil, namePrefix: String? = nil, adapter: String? = "hci0", notifyMode: NotifyMode = .start,
        sleepWhenIdle: Bool = false, busAddress: String? = nil
    ) {
        self.profile = profile
        self.address = address
        self.namePrefix = namePrefix
        self.adapter = adapter
        self.notifyMode = notifyMode
        self.sleepWhenIdle = sleepWhenIdle
        self.busAddress = busAddress
    }
}
