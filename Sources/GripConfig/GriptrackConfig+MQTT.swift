import Foundation

extension GriptrackConfig {
    /// The `[mqtt] password_file`, resolved against the configuration file's directory.
    package var mqttPasswordPath: String? { mqtt.passwordFile.map(resolve) }
    /// The `[mqtt] ca_file`, resolved against the configuration file's directory.
    package var mqttCAPath: String? { mqtt.caFile.map(resolve) }

    /// The password from `[mqtt] password_file` (its first line), or none.
    ///
    /// - Returns: The password.
    /// - Throws: ``ConfigError`` naming `mqtt.password_file` when the file is unreadable, readable by others, or its
    ///   first line is empty.
    package func mqttPassword() throws(ConfigError) -> String? {
        guard let path = mqttPasswordPath else { return nil }
        let file = self.path ?? "(defaults)"
        try Self.checkPrivate(path, file: file, line: nil, key: "mqtt.password_file")
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw ConfigError(
                file: file, line: nil, key: "mqtt.password_file",
                problem: "cannot read \(path); it must be readable by the user griptrack runs as")
        }
        let password = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).first.map(String.init) ?? ""
        guard !password.isEmpty else {
            throw ConfigError(
                file: file, line: nil, key: "mqtt.password_file",
                problem: "the first line of \(path) is empty; write the password on it (or remove password_file)")
        }
        return password
    }

    /// Refuses an `[mqtt]` password file the group or others may read, and settings that only make sense together,
    /// at load time (exit 5, with the key's line).
    func checkMQTTFiles(lines: KeyLines) throws(ConfigError) {
        let file = path ?? "(defaults)"
        if let path = mqttPasswordPath {
            try Self.checkPrivate(
                path, file: file, line: lines.line(section: "mqtt", key: "password_file"), key: "mqtt.password_file")
            if mqtt.username == nil {
                throw ConfigError(
                    file: file, line: lines.line(section: "mqtt", key: "password_file"), key: "mqtt.password_file",
                    problem: "a password needs a username; set [mqtt] username too")
            }
        }
        if mqtt.caFile != nil, mqtt.url?.tls != true {
            throw ConfigError(
                file: file, line: lines.line(section: "mqtt", key: "ca_file"), key: "mqtt.ca_file",
                problem: "ca_file is for TLS; use an mqtts:// url (or remove ca_file)")
        }
        if let ca = mqttCAPath, !FileManager.default.isReadableFile(atPath: ca) {
            throw ConfigError(
                file: file, line: lines.line(section: "mqtt", key: "ca_file"), key: "mqtt.ca_file",
                problem: "\(ca) does not exist or cannot be read")
        }
    }
}
