/// What the MQTT bridge connects to and how it names things (`[mqtt]` in griptrack.toml, docs/config.md).
package struct MQTTSettings: Sendable, Equatable {
    /// The broker's host name or address.
    package var host: String
    /// The broker's TCP port (1883 for `mqtt://`, 8883 for `mqtts://` unless the URL names one).
    package var port: Int
    /// `mqtts://`: TLS, verified against `caFile` or the system's trust store.
    package var tls: Bool
    /// PEM CA certificate for TLS; nil = the system's trust store.
    package var caFile: String?
    /// The broker account, when it asks for one.
    package var username: String?
    /// The password (read from `password_file`), or nil.
    package var password: String?
    /// The MQTT client id (unique per broker).
    package var clientID: String
    /// Every state topic starts with it, e.g. `griptrack/gym-board-2`.
    package var baseTopic: String
    /// Home Assistant's discovery prefix (`homeassistant`).
    package var discoveryPrefix: String
    /// This device's name (Home Assistant's device name; its node id is derived from it).
    package var deviceName: String
    /// Whether the tare button and the recording switch are offered and obeyed.
    package var allowCommands: Bool

    /// Creates settings; `baseTopic` defaults to `griptrack/<deviceName>`.
    package init(
        host: String, port: Int, tls: Bool = false, caFile: String? = nil, username: String? = nil,
        password: String? = nil, clientID: String? = nil, baseTopic: String? = nil,
        discoveryPrefix: String = "homeassistant", deviceName: String, allowCommands: Bool = false
    ) {
        self.host = host
        self.port = port
        self.tls = tls
        self.caFile = caFile
        self.username = username
        self.password = password
        self.deviceName = deviceName
        self.clientID = clientID ?? "griptrack-\(Self.nodeID(deviceName))"
        self.baseTopic = baseTopic ?? "griptrack/\(Self.nodeID(deviceName))"
        self.discoveryPrefix = discoveryPrefix
        self.allowCommands = allowCommands
    }

    /// Home Assistant's node id and the default topic's last level: the device name with every character but
    /// ASCII letters, digits, `_` and `-` replaced by `_` (discovery topics allow no others, and `+`, `#`, `/`
    /// would change a topic's meaning).
    package static func nodeID(_ name: String) -> String {
        let mapped = name.unicodeScalars.map { scalar -> Character in
            let ok = (scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)))
                || scalar == "_" || scalar == "-"
            return ok ? Character(scalar) : "_"
        }
        let text = String(mapped)
        return text.isEmpty ? "griptrack" : text
    }

    /// This device's node id.
    package var nodeID: String { Self.nodeID(deviceName) }
}
