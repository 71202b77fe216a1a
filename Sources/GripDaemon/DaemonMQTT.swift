import Foundation
import GripConfig
import GripMQTT

/// `[mqtt]` of the configuration, ready for the daemon's MQTT bridge: the one mapping from `griptrack.toml` to
/// ``GripMQTT/MQTTSettings`` (docs/home-assistant.md).
package enum DaemonMQTT {
    /// The MQTT settings of a configuration file.
    ///
    /// - Parameter file: The parsed configuration.
    /// - Returns: `nil` when `[mqtt] url` is not set (MQTT is off).
    /// - Throws: ``GripConfig/ConfigError`` naming `mqtt.password_file` when the password cannot be read safely.
    package static func from(_ file: GriptrackConfig) throws(ConfigError) -> MQTTSettings? {
        guard let url = file.mqtt.url else { return nil }
        // The same name `[sync]` gives this device, so Home Assistant and the sync server call it alike.
        let device = file.sync.deviceName ?? ProcessInfo.processInfo.hostName
        return MQTTSettings(
            host: url.host, port: url.port, tls: url.tls, caFile: file.mqttCAPath, username: file.mqtt.username,
            password: try file.mqttPassword(), clientID: file.mqtt.clientID, baseTopic: file.mqtt.baseTopic,
            discoveryPrefix: file.mqtt.discoveryPrefix, deviceName: device, allowCommands: file.mqtt.allowCommands)
    }
}
