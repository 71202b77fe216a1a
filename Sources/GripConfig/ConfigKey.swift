import Foundation
import GripAnalysis
import GripEntitlements
import GripWire
import TOMLKit

/// One known configuration key: where it lives, what it means, and how a TOML value sets it.
struct ConfigKey: Sendable {
    /// Why a value was refused (becomes ``ConfigError/problem``).
    struct Problem: Error {
        var text: String
    }

    /// The table, e.g. `app_store`.
    var section: String
    /// The key inside it, e.g. `bundle_id`.
    var name: String
    /// Sets the value on a configuration, or refuses it.
    var apply: @Sendable (inout GriptrackConfig, any TOMLValueConvertible) throws(Problem) -> Void

    /// Every section that has keys.
    static var sections: [String] { Array(Set(all.map(\.section))).sorted() }

    /// Every key griptrack knows. Add a line to add a setting.
    static let all: [ConfigKey] = [
        ConfigKey(section: "entitlements", name: "bypass") { config, value throws(Problem) in
            config.entitlements.bypass = try bool(value)
        },
        ConfigKey(section: "app_store", name: "bundle_id") { config, value throws(Problem) in
            let id = try string(value)
            guard !id.isEmpty, !id.contains(where: \.isWhitespace) else {
                throw Problem(text: "expected a bundle identifier such as \"com.griptrack.app\", got \"\(id)\"")
            }
            config.appStore.bundleId = id
        },
        ConfigKey(section: "app_store", name: "environment") { config, value throws(Problem) in
            let text = try string(value)
            switch text {
            case "Production": config.appStore.environment = .production
            case "Sandbox": config.appStore.environment = .sandbox
            default: throw Problem(text: "expected \"Production\" or \"Sandbox\", got \"\(text)\"")
            }
        },
        ConfigKey(section: "app_store", name: "app_apple_id") { config, value throws(Problem) in
            guard let number = value.int, value.type == .int, number >= 0 else {
                throw Problem(text: "expected the app's Apple ID, a whole number ≥ 0 (0 = not set), got \(describe(value))")
            }
            config.appStore.appAppleId = Int64(number)
        },
        ConfigKey(section: "app_store", name: "trusted_roots") { config, value throws(Problem) in
            guard let array = value.array else {
                throw Problem(text: "expected a list of DER certificate paths, e.g. [\"/etc/griptrack/root.der\"], got \(describe(value))")
            }
            var paths: [String] = []
            for element in array {
                guard let path = element.string, element.type == .string, !path.isEmpty else {
                    throw Problem(text: "expected a list of DER certificate paths, but one element is \(describe(element))")
                }
                paths.append(path)
            }
            config.appStore.trustedRoots = paths
        },
        ConfigKey(section: "app_store", name: "account_token") { config, value throws(Problem) in
            let text = try string(value)
            if text.isEmpty {
                config.appStore.accountToken = nil
                return
            }
            guard let uuid = UUID(uuidString: text) else {
                throw Problem(text: "expected a UUID such as \"7e3fb20b-4cdb-47cc-936d-99d65f608138\" or \"\", got \"\(text)\"")
            }
            config.appStore.accountToken = uuid
        },
        ConfigKey(section: "device", name: "address") { config, value throws(Problem) in
            let text = try string(value)
            guard BluetoothAddress.isValid(text) else {
                throw Problem(text: "expected a Bluetooth address such as \"F0:0D:CA:FE:12:34\" (six hex pairs separated by colons), got \"\(text)\"")
            }
            config.device.address = text.uppercased()
        },
        ConfigKey(section: "device", name: "profile") { config, value throws(Problem) in
            let text = try string(value)
            guard DeviceProfiles.named(text) != nil else {
                throw Problem(text: "expected one of \(DeviceProfiles.identifiers.map { "\"\($0)\"" }.joined(separator: ", ")) (see `griptrack devices`), got \"\(text)\"")
            }
            config.device.profile = text
        },
        ConfigKey(section: "device", name: "calibration") { config, value throws(Problem) in
            let coefficient = number(value)
            // kg per ADC count of a Frez Dyno (the Frez app shows it): tiny, never zero; the bounds keep a typo such
            // as 2.3 (a force, not a coefficient) out.
            guard let coefficient, coefficient.isFinite, (1e-9...0.1).contains(abs(coefficient)) else {
                throw Problem(text: "expected the Frez Dyno's calibration coefficient in kg per ADC count, between 1e-9 and 0.1 in size (e.g. 0.000105), got \(describe(value))")
            }
            config.device.calibration = coefficient
        },
        ConfigKey(section: "device", name: "scale") { config, value throws(Problem) in
            guard let scale = number(value) else {
                throw Problem(text: "expected the factor this sensor's readings are multiplied by, e.g. 1.03, got \(describe(value))")
            }
            if let reason = ForceCorrection(scale: scale).check() { throw Problem(text: reason) }
            config.device.scale = scale
        },
        ConfigKey(section: "device", name: "offset_kg") { config, value throws(Problem) in
            guard let offset = number(value) else {
                throw Problem(text: "expected the kilograms added to this sensor's readings, e.g. -0.2, got \(describe(value))")
            }
            if let reason = ForceCorrection(offsetKilograms: offset).check() { throw Problem(text: reason) }
            config.device.offsetKilograms = offset
        },
        ConfigKey(section: "device", name: "name_prefix") { config, value throws(Problem) in
            let text = try string(value)
            guard !text.isEmpty else { throw Problem(text: "expected the start of the device's advertised name, e.g. \"Progressor\", got \"\"") }
            config.device.namePrefix = text
        },
        ConfigKey(section: "device", name: "adapter") { config, value throws(Problem) in
            let text = try string(value)
            guard text.hasPrefix("hci"), text.count > 3, text.dropFirst(3).allSatisfy({ $0.isASCII && $0.isNumber }) else {
                throw Problem(text: "expected a BlueZ adapter name such as \"hci0\" (see `bluetoothctl list`), got \"\(text)\"")
            }
            config.device.adapter = text
        },
        ConfigKey(section: "device", name: "notify") { config, value throws(Problem) in
            let text = try string(value)
            guard let mode = GriptrackConfig.Device.NotifyMode(rawValue: text) else {
                throw Problem(text: "expected \"start\" (StartNotify) or \"acquire\" (AcquireNotify), got \"\(text)\"")
            }
            config.device.notify = mode
        },
        ConfigKey(section: "device", name: "sleep_when_idle") { config, value throws(Problem) in
            config.device.sleepWhenIdle = try bool(value)
        },
        ConfigKey(section: "recording", name: "session_gap_seconds") { config, value throws(Problem) in
            let seconds = number(value)
            // Bounded so every later conversion (milliseconds in an Int64, Duration) is exact and cannot trap:
            // 1e308 once passed this check and killed griptrackd at start.
            guard let seconds, seconds.isFinite, (1...GriptrackConfig.Recording.maxSessionGapSeconds).contains(seconds) else {
                throw Problem(text: "expected a number of seconds from 1 to 604800 (a week), e.g. 300, got \(describe(value))")
            }
            config.recording.sessionGapSeconds = seconds
        },
        ConfigKey(section: "sync", name: "url") { config, value throws(Problem) in
            switch SyncURL.parse(try string(value)) {
            case .success(let url): config.sync.url = url
            case .failure(let problem): throw problem
            }
        },
        ConfigKey(section: "sync", name: "ca_file") { config, value throws(Problem) in
            config.sync.caFile = try nonEmpty(value, "a PEM file path such as \"/etc/griptrack/sync-ca.pem\"")
        },
        ConfigKey(section: "sync", name: "password_file") { config, value throws(Problem) in
            config.sync.passwordFile = try nonEmpty(value, "a file path such as \"/etc/griptrack/sync-password\"")
        },
        ConfigKey(section: "sync", name: "device_name") { config, value throws(Problem) in
            config.sync.deviceName = try name(value, "this device's name, e.g. \"gym-board-2\"")
        },
        ConfigKey(section: "sync", name: "account") { config, value throws(Problem) in
            config.sync.account = try name(value, "the account the recordings belong to, e.g. \"crag-gym\"")
        },
        ConfigKey(section: "sync", name: "interval_seconds") { config, value throws(Problem) in
            let seconds = number(value)
            guard let seconds, seconds.isFinite, seconds >= 1 else {
                throw Problem(text: "expected a number of seconds ≥ 1, e.g. 60, got \(describe(value))")
            }
            config.sync.intervalSeconds = seconds
        },
        ConfigKey(section: "sync", name: "operator_key") { config, value throws(Problem) in
            let text = try string(value)
            guard let key = OperatorKey(text) else {
                throw Problem(text: "expected the operator's Ed25519 public key, 32 bytes in base64 as `griptrack admin key generate` prints it, got \"\(text.prefix(80))\"")
            }
            config.sync.operatorKey = key
        },
        ConfigKey(section: "web", name: "listen") { config, value throws(Problem) in
            let text = try string(value)
            guard let listen = WebListen(text) else {
                throw Problem(text: "expected an address and port such as \"0.0.0.0:8080\", \"127.0.0.1:8080\" or \"[::]:8080\", got \"\(text)\"")
            }
            config.web.listen = listen
        },
        ConfigKey(section: "web", name: "anonymous") { config, value throws(Problem) in
            let text = try string(value)
            guard let anonymous = GriptrackConfig.Web.Anonymous(rawValue: text) else {
                throw Problem(text: "expected \"none\" (every visitor pairs first) or \"watch\" (anyone on the network may watch), got \"\(text)\"")
            }
            config.web.anonymous = anonymous
        },
        ConfigKey(section: "web", name: "tls_certificate") { config, value throws(Problem) in
            config.web.tlsCertificate = try nonEmpty(value, "a PEM certificate file such as \"/etc/griptrack/web.crt\"")
        },
        ConfigKey(section: "web", name: "tls_key") { config, value throws(Problem) in
            config.web.tlsKey = try nonEmpty(value, "a PEM private key file such as \"/etc/griptrack/web.key\"")
        },
        ConfigKey(section: "hub", name: "listen") { config, value throws(Problem) in
            let text = try string(value)
            guard let listen = WebListen(text) else {
                throw Problem(text: "expected an address and port such as \"127.0.0.1:8089\", got \"\(text)\"")
            }
            config.hub.listen = listen
        },
        ConfigKey(section: "hub", name: "url") { config, value throws(Problem) in
            switch SyncURL.parse(try string(value)) {
            case .success(let url): config.hub.url = url
            case .failure(let problem): throw problem
            }
        },
        ConfigKey(section: "hub", name: "ca_file") { config, value throws(Problem) in
            config.hub.caFile = try nonEmpty(value, "a PEM file path such as \"/etc/griptrack/sync-ca.pem\"")
        },
        ConfigKey(section: "hub", name: "password_file") { config, value throws(Problem) in
            config.hub.passwordFile = try nonEmpty(value, "a file path such as \"/etc/griptrack/hub-password\"")
        },
        ConfigKey(section: "hub", name: "requests_per_minute") { config, value throws(Problem) in
            guard value.type == .int, let number = value.int, (1...10_000).contains(number) else {
                throw Problem(text: "expected a whole number of requests from 1 to 10000, e.g. 60, got \(describe(value))")
            }
            config.hub.requestsPerMinute = number
        },
        ConfigKey(section: "mqtt", name: "url") { config, value throws(Problem) in
            switch MQTTURL.parse(try string(value)) {
            case .success(let url): config.mqtt.url = url
            case .failure(let problem): throw problem
            }
        },
        ConfigKey(section: "mqtt", name: "ca_file") { config, value throws(Problem) in
            config.mqtt.caFile = try nonEmpty(value, "a PEM file path such as \"/etc/griptrack/mqtt-ca.pem\"")
        },
        ConfigKey(section: "mqtt", name: "username") { config, value throws(Problem) in
            config.mqtt.username = try name(value, "the broker account, e.g. \"griptrack\"")
        },
        ConfigKey(section: "mqtt", name: "password_file") { config, value throws(Problem) in
            config.mqtt.passwordFile = try nonEmpty(value, "a file path such as \"/etc/griptrack/mqtt-password\"")
        },
        ConfigKey(section: "mqtt", name: "client_id") { config, value throws(Problem) in
            let text = try name(value, "an MQTT client id, e.g. \"griptrack-gym-board-2\"")
            guard !text.contains(where: \.isWhitespace) else {
                throw Problem(text: "expected an MQTT client id without spaces, e.g. \"griptrack-gym-board-2\", got \"\(text)\"")
            }
            config.mqtt.clientID = text
        },
        ConfigKey(section: "mqtt", name: "base_topic") { config, value throws(Problem) in
            config.mqtt.baseTopic = try topic(value, "a topic such as \"griptrack/gym-board-2\"")
        },
        ConfigKey(section: "mqtt", name: "discovery_prefix") { config, value throws(Problem) in
            config.mqtt.discoveryPrefix = try topic(value, "Home Assistant's discovery prefix, e.g. \"homeassistant\"")
        },
        ConfigKey(section: "mqtt", name: "allow_commands") { config, value throws(Problem) in
            config.mqtt.allowCommands = try bool(value)
        },
    ]

    /// An MQTT topic to publish under: levels separated by `/`, none empty, no wildcards (`+`, `#`), no spaces or
    /// control characters, at most 200 bytes.
    private static func topic(_ value: any TOMLValueConvertible, _ expected: String) throws(Problem) -> String {
        let text = try string(value)
        let levels = text.split(separator: "/", omittingEmptySubsequences: false)
        guard !text.isEmpty, text.utf8.count <= 200, !levels.contains(where: \.isEmpty),
            !text.contains(where: { $0 == "+" || $0 == "#" || $0.isWhitespace || ($0.asciiValue.map { $0 < 0x20 } ?? false) })
        else {
            throw Problem(
                text: "expected \(expected): levels separated by /, none empty, without +, # or spaces, got \"\(text)\"")
        }
        return text
    }

    private static func nonEmpty(_ value: any TOMLValueConvertible, _ expected: String) throws(Problem) -> String {
        let text = try string(value)
        guard !text.isEmpty else { throw Problem(text: "expected \(expected), got \"\"") }
        return text
    }

    /// 1–64 printable characters without spaces at either end (they label rows on the server).
    private static func name(_ value: any TOMLValueConvertible, _ expected: String) throws(Problem) -> String {
        let text = try string(value)
        guard (1...64).contains(text.count), text.trimmingCharacters(in: .whitespaces) == text,
            !text.contains(where: { $0.isNewline || ($0.asciiValue.map { $0 < 0x20 } ?? false) })
        else {
            throw Problem(text: "expected \(expected) (1 to 64 characters, no surrounding spaces), got \"\(text)\"")
        }
        return text
    }

    private static func bool(_ value: any TOMLValueConvertible) throws(Problem) -> Bool {
        guard value.type == .bool, let bool = value.bool else {
            throw Problem(text: "expected true or false, got \(describe(value))")
        }
        return bool
    }

    /// A TOML integer or float as a number; nil for anything else.
    private static func number(_ value: any TOMLValueConvertible) -> Double? {
        switch value.type {
        case .int: value.int.map(Double.init)
        case .double: value.double
        default: nil
        }
    }

    private static func string(_ value: any TOMLValueConvertible) throws(Problem) -> String {
        guard value.type == .string, let string = value.string else {
            throw Problem(text: "expected a quoted string, got \(describe(value))")
        }
        return string
    }

    private static func describe(_ value: any TOMLValueConvertible) -> String {
        switch value.type {
        case .string: "the string \"\(value.string ?? "")\""
        case .int: "the integer \(value.int.map(String.init) ?? "?")"
        case .bool: "\(value.bool.map(String.init) ?? "?")"
        case .double: "the number \(value.double.map { String($0) } ?? "?")"
        default: "a \(value.type)"
        }
    }
}

/// Finds the line of `key = …` inside `[section]` in TOML text (TOMLKit keeps no source positions for values).
/// Handles the plain `[section]` / `key = value` layout of griptrack's files, quoted keys, and `section.key =` at
/// top level; returns `nil` when it cannot tell.
struct KeyLines {
    private var entries: [(section: String?, key: String?, line: Int)] = []

    init(_ text: String) {
        var section: String?
        // Lines end at each "\n", as toml++ counts them. Splitting the Characters would not: "\r\n" is one Character,
        // so every CRLF line would run into the next and later errors would name the wrong line.
        for (index, raw) in text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = String(raw).trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("[") && !line.hasPrefix("[[") {
                guard let close = line.firstIndex(of: "]") else { continue }
                section = Self.unquote(String(line[line.index(after: line.startIndex)..<close]))
                entries.append((section, nil, index + 1))
                continue
            }
            guard !line.hasPrefix("#"), let equals = line.firstIndex(of: "=") else { continue }
            let key = Self.unquote(String(line[..<equals]))
            if section == nil, let dot = key.firstIndex(of: ".") {
                entries.append((String(key[..<dot]), String(key[key.index(after: dot)...]), index + 1))
            }
            entries.append((section, key, index + 1))
        }
    }

    func line(section: String?, key: String?) -> Int? {
        entries.first { $0.section == section && $0.key == key }?.line
    }

    private static func unquote(_ text: String) -> String {
        text.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\"'"))
    }
}
