/// BlueZ's D-Bus names in one place (as bleak's defs.py).
enum BlueZ {
    static let service = "org.bluez"
    static let adapter = "org.bluez.Adapter1"
    static let device = "org.bluez.Device1"
    static let gattService = "org.bluez.GattService1"
    static let characteristic = "org.bluez.GattCharacteristic1"

    /// Error names (`src/error.c`) and the bus's own.
    enum Error {
        static let failed = "org.bluez.Error.Failed"
        static let inProgress = "org.bluez.Error.InProgress"
        static let notReady = "org.bluez.Error.NotReady"
        static let notPermitted = "org.bluez.Error.NotPermitted"
        static let notSupported = "org.bluez.Error.NotSupported"
        static let notConnected = "org.bluez.Error.NotConnected"
        static let doesNotExist = "org.bluez.Error.DoesNotExist"
        static let notAvailable = "org.bluez.Error.NotAvailable"
        static let connectionAttemptFailed = "org.bluez.Error.ConnectionAttemptFailed"
        static let unknownObject = "org.freedesktop.DBus.Error.UnknownObject"
        static let unknownMethod = "org.freedesktop.DBus.Error.UnknownMethod"
        static let noReply = "org.freedesktop.DBus.Error.NoReply"
        static let serviceUnknown = "org.freedesktop.DBus.Error.ServiceUnknown"
    }
}

/// A Bluetooth adapter as BlueZ reports it.
public struct AdapterInfo: Sendable, Hashable {
    /// `/org/bluez/hci0`.
    public var path: ObjectPath
    /// `hci0`.
    public var name: String
    /// The adapter's own address.
    public var address: String
    /// Whether it is powered on.
    public var powered: Bool
    /// Whether any client is discovering.
    public var discovering: Bool
}

/// A remote device BlueZ knows about (an `org.bluez.Device1` object).
public struct DeviceInfo: Sendable, Hashable {
    /// `/org/bluez/hci0/dev_F0_0D_CA_FE_12_34`.
    public var path: ObjectPath
    /// The adapter it was seen on.
    public var adapter: ObjectPath
    /// `F0:0D:CA:FE:12:34`.
    public var address: String
    /// The advertised or cached name, if any.
    public var name: String?
    /// Last advertisement's RSSI (dBm); nil when not currently discovering.
    public var rssi: Int?
    /// Advertised or resolved service UUIDs, lower case.
    public var serviceUUIDs: [String]
    /// Whether BlueZ has a link to it.
    public var connected: Bool
    /// Whether its GATT services are resolved.
    public var servicesResolved: Bool

    init?(path: ObjectPath, properties: [String: DBusValue]) {
        guard let address = properties["Address"]?.stringValue else { return nil }
        self.path = path
        let parent = path.rawValue[..<(path.rawValue.lastIndex(of: "/") ?? path.rawValue.endIndex)]
        adapter = properties["Adapter"]?.objectPathValue ?? ObjectPath(rawValue: String(parent))
        self.address = address.uppercased()
        name = properties["Name"]?.stringValue ?? properties["Alias"]?.stringValue
        rssi = properties["RSSI"]?.integerValue.map { Int($0) }
        serviceUUIDs = (properties["UUIDs"]?.stringsValue ?? []).map { $0.lowercased() }
        connected = properties["Connected"]?.boolValue ?? false
        servicesResolved = properties["ServicesResolved"]?.boolValue ?? false
    }
}

/// Which device to use. Every given field must match; at least one should be given.
public struct DeviceCriteria: Sendable, Hashable, CustomStringConvertible {
    /// Exact Bluetooth address (any case).
    public var address: String?
    /// Prefix of the advertised name, e.g. `Progressor`.
    public var namePrefix: String?
    /// The whole advertised name, e.g. `CTS500`.
    public var name: String?
    /// A service UUID the device advertises; also used as the discovery filter.
    public var serviceUUID: String?

    /// Makes criteria; nil fields are not checked.
    public init(address: String? = nil, namePrefix: String? = nil, name: String? = nil, serviceUUID: String? = nil) {
        self.address = address
        self.namePrefix = namePrefix
        self.name = name
        self.serviceUUID = serviceUUID
    }

    /// Whether `device` satisfies every given field. BlueZ merges the discovery filters of all clients, so every
    /// reported device is checked here again.
    public func matches(_ device: DeviceInfo) -> Bool {
        if let address, device.address != address.uppercased() { return false }
        if let namePrefix, !(device.name?.hasPrefix(namePrefix) ?? false) { return false }
        if let name, device.name != name { return false }
        if let serviceUUID, !device.serviceUUIDs.contains(serviceUUID.lowercased()) { return false }
        return true
    }

    /// Several alternatives as text, for messages (`name prefix "Progressor"; or service …`).
    public static func describe(anyOf criteria: [DeviceCriteria]) -> String {
        criteria.map(\.description).joined(separator: "; or ")
    }

    /// The criteria as text, for messages (`name prefix "Progressor", service …`).
    public var description: String {
        var parts: [String] = []
        if let address { parts.append("address \(address)") }
        if let namePrefix { parts.append("name prefix \"\(namePrefix)\"") }
        if let name { parts.append("name \"\(name)\"") }
        if let serviceUUID { parts.append("service \(serviceUUID)") }
        return parts.isEmpty ? "any device" : parts.joined(separator: ", ")
    }
}
