import Foundation
import GripConfig
import Testing

/// `[mqtt]` (docs/config.md): every key, its default, and the errors that name file, line and key.
@Suite("[mqtt] configuration")
struct MQTTConfigTests {
    @Test("every key is read; unset keys keep their defaults")
    func keysAreRead() throws {
        let config = try GriptrackConfig.parse(
            """
            [mqtt]
            url = "mqtts://broker.example.net"
            username = "griptrack"
            client_id = "gt-board-2"
            base_topic = "gym/board-2"
            discovery_prefix = "ha"
            allow_commands = true
            """, file: "g.toml")
        #expect(config.mqtt.url == MQTTURL(tls: true, host: "broker.example.net", port: 8883))
        #expect(config.mqtt.username == "griptrack")
        #expect(config.mqtt.clientID == "gt-board-2")
        #expect(config.mqtt.baseTopic == "gym/board-2")
        #expect(config.mqtt.discoveryPrefix == "ha")
        #expect(config.mqtt.allowCommands)
        let defaults = try GriptrackConfig.parse("[mqtt]\nurl = \"mqtt://10.0.0.2\"\n", file: "g.toml")
        #expect(defaults.mqtt.url == MQTTURL(tls: false, host: "10.0.0.2", port: 1883))
        #expect(defaults.mqtt.discoveryPrefix == "homeassistant")
        #expect(!defaults.mqtt.allowCommands)
        #expect(defaults.mqtt.baseTopic == nil)
    }

    @Test("a bad value names the file, the line and the key", arguments: [
        ("url = \"http://broker\"", "mqtt.url"),
        ("url = \"mqtt://user:secret@broker\"", "mqtt.url"),
        ("url = \"mqtt://broker/topic\"", "mqtt.url"),
        ("base_topic = \"griptrack/+/x\"", "mqtt.base_topic"),
        ("base_topic = \"griptrack//x\"", "mqtt.base_topic"),
        ("discovery_prefix = \"\"", "mqtt.discovery_prefix"),
        ("client_id = \"two words\"", "mqtt.client_id"),
        ("allow_commands = \"yes\"", "mqtt.allow_commands"),
        ("retain = true", "mqtt.retain"),
    ])
    func badValuesNameTheKey(line: String, key: String) {
        do {
            _ = try GriptrackConfig.parse("# griptrack\n[mqtt]\n\(line)\n", file: "g.toml")
            Issue.record("accepted \(line)")
        } catch {
            #expect(error.file == "g.toml")
            #expect(error.line == 3, "\(error)")
            #expect(error.key == key, "\(error)")
        }
    }

    @Test("a password file others may read is refused at load time, as [sync]'s is")
    func readablePasswordFileIsRefused() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("gt-mqtt-config-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let password = directory.appendingPathComponent("mqtt-password").path
        try "secret\n".write(toFile: password, atomically: true, encoding: .utf8)
        let file = directory.appendingPathComponent("griptrack.toml").path
        try "[mqtt]\nurl = \"mqtt://broker\"\nusername = \"gt\"\npassword_file = \"mqtt-password\"\n"
            .write(toFile: file, atomically: true, encoding: .utf8)
        chmod(password, 0o644)
        #expect(throws: ConfigError.self) { try GriptrackConfig.load(path: file, required: true) }
        do {
            _ = try GriptrackConfig.load(path: file, required: true)
        } catch {
            #expect(error.line == 4)
            #expect(error.key == "mqtt.password_file")
            #expect(error.problem.contains("chmod 600"))
        }
        chmod(password, 0o600)
        let config = try GriptrackConfig.load(path: file, required: true)
        #expect(try config.mqttPassword() == "secret")
    }
}
