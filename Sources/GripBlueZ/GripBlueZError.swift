/// Everything that can go wrong talking to BlueZ. The description says what happened and what to do; the D-Bus
/// error name, when there is one, stays an associated value for logs.
public enum GripBlueZError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The D-Bus system bus could not be reached.
    case busUnavailable(address: String, dbusError: String, message: String)
    /// Nobody owns `org.bluez` on the bus (bluetoothd is not running).
    case bluetoothdNotRunning
    /// No adapter (`org.bluez.Adapter1`), or not the one asked for.
    case noAdapter(requested: String?)
    /// The adapter exists but is powered off.
    case adapterPoweredOff(adapter: String)
    /// Discovery ended without a device matching the criteria.
    case deviceNotFound(criteria: String, seconds: Double)
    /// Connect kept failing.
    case connectFailed(device: String, attempts: Int, dbusError: String, message: String)
    /// Connected, but ServicesResolved never became true.
    case servicesNotResolved(device: String, seconds: Double)
    /// The link went down (or bluetoothd went away) and reconnecting is off.
    case disconnected(device: String, reason: String)
    /// The device has no characteristic with this UUID (under the expected service).
    case characteristicNotFound(device: String, uuid: String)
    /// The characteristic's Flags do not allow the operation.
    case notPermitted(characteristic: String, operation: String, flags: [String])
    /// A BlueZ method returned an error.
    case methodFailed(member: String, path: String, dbusError: String, message: String)
    /// A reply had an unexpected signature.
    case unexpectedReply(member: String, signature: String)
    /// A value could not be marshalled (invalid object path, signature, or mismatched element types).
    case invalidArgument(member: String)
    /// The client or connection was closed.
    case closed

    /// What happened and what to do about it.
    public var description: String {
        switch self {
        case .busUnavailable(let address, let name, let message):
            "Cannot reach the D-Bus system bus at \(address) (\(name): \(message)). Check that dbus is running "
                + "(`systemctl status dbus`) and that this user may connect to it."
        case .bluetoothdNotRunning:
            "bluetoothd is not running (nobody owns org.bluez on the system bus). Start it with "
                + "`sudo systemctl start bluetooth` and check `systemctl status bluetooth`."
        case .noAdapter(let requested?):
            "Bluetooth adapter \(requested) not found. List adapters with `bluetoothctl list` and pick one of them."
        case .noAdapter(nil):
            "No Bluetooth adapter found. Plug one in, or check `rfkill list` and `bluetoothctl list`."
        case .adapterPoweredOff(let adapter):
            "Bluetooth adapter \(adapter) is powered off. Turn it on with `bluetoothctl power on` "
                + "(and `rfkill unblock bluetooth` if it is blocked)."
        case .deviceNotFound(let criteria, let seconds):
            "No device matching \(criteria) was seen in \(Self.format(seconds)) s of scanning. Wake the device "
                + "(press its button), bring it closer, and make sure no phone app is connected to it."
        case .connectFailed(let device, let attempts, let name, let message):
            "Could not connect to \(device) after \(attempts) attempt(s) (\(name): \(message)). Bring the device "
                + "closer, make sure no other central is connected to it, then try again."
        case .servicesNotResolved(let device, let seconds):
            "Connected to \(device) but its GATT services were not resolved within \(Self.format(seconds)) s. "
                + "Power-cycle the device and try again."
        case .disconnected(let device, let reason):
            "Lost the connection to \(device) (\(reason)). Check its battery and range, then reconnect."
        case .characteristicNotFound(let device, let uuid):
            "\(device) has no characteristic \(uuid). Check that this is the expected kind of device "
                + "(`bluetoothctl info` lists its services)."
        case .notPermitted(let characteristic, let operation, let flags):
            "\(operation) is not allowed on \(characteristic) (flags: \(flags.joined(separator: ", "))). "
                + "This device profile is wrong for this device."
        case .methodFailed(let member, let path, let name, let message):
            "BlueZ refused \(member) on \(path) (\(name): \(message)). See `journalctl -u bluetooth` for details."
        case .unexpectedReply(let member, let signature):
            "BlueZ answered \(member) with an unexpected reply (signature \(signature)). Check the BlueZ version "
                + "(`bluetoothctl --version`, 5.66 or later is supported)."
        case .invalidArgument(let member):
            "Could not encode the arguments of \(member) (invalid path, signature or element types). This is a "
                + "bug in the caller."
        case .closed:
            "The BlueZ client was closed. Create a new one."
        }
    }

    /// The D-Bus error name behind this error, if any (for logs and matching).
    public var dbusErrorName: String? {
        switch self {
        case .busUnavailable(_, let name, _), .connectFailed(_, _, let name, _), .methodFailed(_, _, let name, _):
            name
        default:
            nil
        }
    }

    private static func format(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
    }
}

extension Duration {
    /// The duration in seconds as a Double.
    var seconds: Double {
        let (s, attoseconds) = components
        return Double(s) + Double(attoseconds) / 1e18
    }

    /// Whole milliseconds, at least 1, clamped to Int32 (libdbus timeouts).
    var clampedMilliseconds: Int32 {
        let ms = (seconds * 1000).rounded(.up)
        return Int32(max(1, min(ms, Double(Int32.max))))
    }
}
