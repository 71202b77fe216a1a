import Foundation

/// `[mqtt] url`, parsed: `mqtt://host[:port]` or `mqtts://host[:port]` (TLS).
package struct MQTTURL: Sendable, Equatable {
    /// `mqtts://`: TLS, verified against `ca_file` or the system's trust store.
    package var tls: Bool
    /// A host name or address.
    package var host: String
    /// 1883 for `mqtt://` and 8883 for `mqtts://` unless the URL names a port.
    package var port: Int

    /// Creates a URL value.
    /// - Parameters: See the properties.
    package init(tls: Bool, host: String, port: Int) {
        self.tls = tls
        self.host = host
        self.port = port
    }

    /// Parses a URL.
    ///
    /// - Parameter text: The URL.
    /// - Returns: The parts, or why not (for the configuration error).
    static func parse(_ text: String) -> Result<MQTTURL, ConfigKey.Problem> {
        let example = "e.g. \"mqtt://homeassistant.local:1883\" or \"mqtts://broker.example.net\""
        guard let components = URLComponents(string: text), let scheme = components.scheme,
            scheme == "mqtt" || scheme == "mqtts"
        else {
            return .failure(.init(text: "expected an mqtt:// or mqtts:// URL, \(example), got \"\(text)\""))
        }
        guard let host = components.host, !host.isEmpty else {
            return .failure(.init(text: "the URL names no host, \(example), got \"\(text)\""))
        }
        guard components.user == nil, components.password == nil else {
            return .failure(.init(
                text: "put the account in username and the password in password_file, not in the URL (it shows in "
                    + "logs), \(example)"))
        }
        guard components.path.isEmpty || components.path == "/", components.query == nil, components.fragment == nil
        else {
            return .failure(.init(text: "expected only a host and a port, \(example), got \"\(text)\""))
        }
        let tls = scheme == "mqtts"
        let port = components.port ?? (tls ? 8883 : 1883)
        guard (1...65535).contains(port) else {
            return .failure(.init(text: "expected a port from 1 to 65535, got \(port)"))
        }
        return .success(MQTTURL(tls: tls, host: host, port: port))
    }
}
