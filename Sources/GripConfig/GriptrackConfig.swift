import Foundation
import GripAnalysis
import GripEntitlements
import TOMLKit

/// The griptrack configuration file (`/etc/griptrack/griptrack.toml`), shared by the CLI and the daemon.
///
/// Every key is optional and has a default; an unknown key, a key of the wrong type, or a bad value is an error
/// naming the file, the line and the key (``ConfigError``). The known keys are one table, ``ConfigKey/all``: a new
/// setting is a property here and one line there.
package struct GriptrackConfig: Sendable, Equatable {
    /// Where the system configuration lives.
    package static let defaultPath = "/etc/griptrack/griptrack.toml"

    /// `[entitlements]`
    package var entitlements = Entitlements()
    /// `[app_store]`
    package var appStore = AppStore()
    /// `[device]`
    package var device = Device()
    /// `[recording]`
    package var recording = Recording()
    /// `[sync]`
    package var sync = Sync()
    /// `[web]`: the web app griptrackd serves (docs/web.md).
    package var web = Web()
    /// `[mqtt]`
    package var mqtt = MQTT()
    /// `[hub]`: griptrack-hub, the App Store notifications receiver beside PostgreSQL (docs/account.md).
    package var hub = Hub()
    /// `[protocols]`: the user's own protocols by name, in the file's order (docs/protocols.md).
    package var protocols: [NamedProtocol] = []
    /// The file it was read from; `nil` for the built-in defaults.
    package var path: String?

    /// `[entitlements]`: who gets Pro besides subscribers and manual grants.
    package struct Entitlements: Sendable, Equatable {
        /// `bypass`: early access, everyone gets Pro.
        package var bypass = false
    }

    /// `[app_store]`: what App Store signed data must say to be accepted.
    package struct AppStore: Sendable, Equatable {
        /// `bundle_id`: the app's bundle identifier.
        package var bundleId = "com.griptrack.app"
        /// `environment`: `Production` or `Sandbox`.
        package var environment = AppStoreEnvironment.production
        /// `app_apple_id`: the app's Apple ID; 0 = not set (required for Production notifications).
        package var appAppleId: Int64 = 0
        /// `trusted_roots`: DER root certificates; empty = the bundled, pinned Apple Root CA - G3. Relative paths
        /// are resolved against the configuration file's directory.
        package var trustedRoots: [String] = []
        /// `account_token`: the `appAccountToken` UUID purchases must carry; `nil` = not bound.
        package var accountToken: UUID?
    }

    /// `[device]`: which force device the daemon connects to, and how.
    package struct Device: Sendable, Equatable {
        /// How notifications reach the daemon (`notify`).
        package enum NotifyMode: String, Sendable, Equatable {
            /// `StartNotify` + `PropertiesChanged` signals (survives reconnects; the default).
            case start
            /// `AcquireNotify` + a socket (falls back to `start` when BlueZ refuses).
            case acquire
        }

        /// `address`: the device's Bluetooth address, upper case (`AA:BB:CC:DD:EE:FF`); nil = discover by name
        /// prefix, then by service UUID.
        package var address: String?
        /// `profile`: which kind of device to drive, an identifier of the profile table (`progressor`, the default;
        /// `griptrack devices` shows each nearby device's).
        package var profile = "progressor"
        /// `calibration`: the Frez Dyno's coefficient, kg per ADC count (no other device needs one).
        package var calibration: Double?
        /// `scale`: a person's own correction of this sensor, the factor its readings are multiplied by
        /// (`griptrack calibrate` writes it; docs/calibration.md). Needs `address`: a correction belongs to one sensor.
        package var scale: Double?
        /// `offset_kg`: the kilograms added after `scale`.
        package var offsetKilograms: Double?
        /// `name_prefix`: advertised names that count as the device; nil = the profile's (`Progressor`).
        package var namePrefix: String?
        /// `adapter`: the BlueZ adapter (`hci0`).
        package var adapter = "hci0"
        /// `notify`: `start` or `acquire`.
        package var notify = NotifyMode.start
        /// `sleep_when_idle`: after `session_gap_seconds` without an effort, stop measuring and also put the
        /// device to sleep.
        package var sleepWhenIdle = false

        /// The correction `scale` and `offset_kg` make together; nil when neither is set.
        package var correction: ForceCorrection? {
            guard scale != nil || offsetKilograms != nil else { return nil }
            return ForceCorrection(scale: scale ?? 1, offsetKilograms: offsetKilograms ?? 0)
        }
    }

    /// `[recording]`: how the force stream is cut into recordings.
    package struct Recording: Sendable, Equatable {
        /// `session_gap_seconds`: idle time that ends a recording (and stops measuring), in seconds.
        package var sessionGapSeconds: Double = 300
        /// The longest accepted `session_gap_seconds` (a week): a longer gap never ends a recording anyway.
        package static let maxSessionGapSeconds: Double = 604_800
    }

    /// `[sync]`: the PostgreSQL database recordings and the subscription mirror are pushed to (docs/sync.md).
    package struct Sync: Sendable, Equatable {
        /// `url`: the server; `nil` = sync is not configured.
        package var url: SyncURL?
        /// `ca_file`: PEM CA certificate for TLS; relative to the configuration file's directory.
        package var caFile: String?
        /// `password_file`: a file holding the password (its first line); must not be group- or world-readable.
        package var passwordFile: String?
        /// `device_name`: this device, unique within the account; default: the host name.
        package var deviceName: String?
        /// `account`: whose recordings these are.
        package var account: String?
        /// `interval_seconds`: how often griptrackd pushes.
        package var intervalSeconds: Double = 60
        /// `operator_key`: the operator's Ed25519 public key (base64); central grants must be signed with it
        /// (docs/account.md). `nil` = central grants are not pulled.
        package var operatorKey: OperatorKey?
    }

    /// `[hub]`: what griptrack-hub listens on and where it stores what it receives (docs/account.md). Only the hub
    /// reads it; the App Store checks are `[app_store]`'s, the same as a Pi's.
    package struct Hub: Sendable, Equatable {
        /// `listen`: the address and port, behind the TLS reverse proxy (`127.0.0.1:8089` by default).
        package var listen = WebListen("127.0.0.1:8089")!
        /// `url`: the PostgreSQL server, as `[sync] url` (an operator role); `nil` = the hub cannot start.
        package var url: SyncURL?
        /// `ca_file`: PEM CA certificate for TLS to PostgreSQL; relative to the configuration file's directory.
        package var caFile: String?
        /// `password_file`: the operator role's password (its first line); must not be group- or world-readable.
        package var passwordFile: String?
        /// `requests_per_minute`: notification requests accepted per client address in any minute.
        package var requestsPerMinute = 60
    }

    /// `[web]`: the web app griptrackd serves (docs/web.md); off unless `listen` is set.
    package struct Web: Sendable, Equatable {
        /// Who may use the web app without pairing.
        package enum Anonymous: String, Sendable, Equatable {
            /// Nobody: every API call needs a paired session or a bearer token.
            case none
            /// Anyone who reaches the port may watch (the live view and the history).
            case watch
        }

        /// `listen`: the address and port, or nil (the web app is off).
        package var listen: WebListen?
        /// `anonymous`: what a visitor without credentials may do.
        package var anonymous = Anonymous.none
        /// `tls_certificate`: a PEM certificate chain; with `tls_key`, the web app serves HTTPS only. Relative to the
        /// configuration file's directory.
        package var tlsCertificate: String?
        /// `tls_key`: the certificate's PEM private key; must not be group- or world-readable.
        package var tlsKey: String?
    }

    /// `[mqtt]`: the MQTT broker griptrackd publishes to, with Home Assistant discovery (docs/home-assistant.md).
    package struct MQTT: Sendable, Equatable {
        /// `url`: the broker; `nil` = MQTT is off.
        package var url: MQTTURL?
        /// `ca_file`: PEM CA certificate for `mqtts://`; relative to the configuration file's directory.
        package var caFile: String?
        /// `username`: the broker account.
        package var username: String?
        /// `password_file`: a file holding the password (its first line); must not be group- or world-readable.
        package var passwordFile: String?
        /// `client_id`: the MQTT client id; default `griptrack-<node id>`.
        package var clientID: String?
        /// `base_topic`: the state topics' prefix; default `griptrack/<device name>`.
        package var baseTopic: String?
        /// `discovery_prefix`: Home Assistant's discovery prefix.
        package var discoveryPrefix = "homeassistant"
        /// `allow_commands`: offer and obey the tare button and the recording switch.
        package var allowCommands = false
    }

    /// The built-in defaults (no file).
    package init() {}

    /// Reads a configuration file.
    ///
    /// - Parameters:
    ///   - path: The file.
    ///   - required: When `false`, a missing file yields the defaults (the system file is optional); when `true`
    ///     (`--config PATH`), a missing file is an error.
    /// - Returns: The configuration.
    /// - Throws: ``ConfigError``.
    package static func load(path: String, required: Bool) throws(ConfigError) -> GriptrackConfig {
        guard FileManager.default.fileExists(atPath: path) else {
            if required { throw ConfigError(file: path, line: nil, key: nil, problem: "the file does not exist") }
            return GriptrackConfig()
        }
        let bytes: [UInt8]
        do {
            bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        } catch {
            throw ConfigError(file: path, line: nil, key: nil, problem: "cannot read it (\(error.localizedDescription))")
        }
        if let bad = UTF8Check.firstInvalid(in: bytes) {
            throw ConfigError(
                file: path, line: bad.line, key: nil,
                problem: "byte \(bad.byte) is not UTF-8; a configuration file is UTF-8 text, comments included "
                    + "(re-save it as UTF-8)")
        }
        let text = String(decoding: bytes, as: UTF8.self)
        var config = try parse(text, file: path)
        config.path = path
        try config.checkSyncFiles(lines: KeyLines(text))
        try config.checkMQTTFiles(lines: KeyLines(text))
        try config.checkWebFiles(lines: KeyLines(text))
        try config.checkHubFiles(lines: KeyLines(text))
        return config
    }

    /// Parses configuration text.
    ///
    /// - Parameters:
    ///   - text: TOML.
    ///   - file: The file name to put in errors.
    /// - Returns: The configuration (``path`` not set).
    /// - Throws: ``ConfigError``.
    package static func parse(_ text: String, file: String) throws(ConfigError) -> GriptrackConfig {
        // TOMLKit reads a C string: everything after a NUL would be silently ignored.
        if let nul = text.utf8.firstIndex(of: 0) {
            let line = text.utf8[..<nul].reduce(1) { $1 == UInt8(ascii: "\n") ? $0 + 1 : $0 }
            throw ConfigError(
                file: file, line: line, key: nil,
                problem: "a NUL byte at byte \(text.utf8.distance(from: text.utf8.startIndex, to: nul)); "
                    + "a configuration file is plain text — the file may be damaged")
        }
        if let line = TableHeaderCheck.firstBadHeaderLine(in: text) {
            throw ConfigError(
                file: file, line: line, key: nil,
                problem: "a table name must start with a letter, a digit, _, - or a quote, e.g. [device]")
        }
        if let line = ArrayElementCheck.firstMisplacedBraceLine(in: text) {
            throw ConfigError(file: file, line: line, key: nil, problem: "expected a value or ']' before '}'")
        }
        let table: TOMLTable
        do {
            table = try TOMLTable(string: text)
        } catch let error as TOMLParseError {
            throw ConfigError(file: file, line: error.source.begin.line, key: nil, problem: error.description)
        } catch {
            throw ConfigError(file: file, line: nil, key: nil, problem: "\(error)")
        }
        let lines = KeyLines(text)
        var config = GriptrackConfig()
        // Every key's problem, not the first one's: a person fixes the file once, top to bottom.
        var problems: [ConfigError] = []
        for section in table.keys.sorted() {
            guard let value = table[section] else { continue }
            let knownSections = (ConfigKey.sections + [Self.protocolsSection]).sorted()
            guard let sectionTable = value.table, knownSections.contains(section) else {
                let known = knownSections.map { "[\($0)]" }.joined(separator: ", ")
                problems.append(ConfigError(
                    file: file, line: lines.line(section: nil, key: section) ?? lines.line(section: section, key: nil),
                    key: Self.keyPath(section),
                    problem: "unknown \(value.table == nil ? "key" : "section"); known sections: \(known)"))
                continue
            }
            if section == Self.protocolsSection {
                do throws(ConfigError) {
                    config.protocols = try readProtocols(sectionTable, file: file, lines: lines)
                } catch {
                    problems.append(error)
                }
                continue
            }
            for name in sectionTable.keys.sorted() {
                guard let item = sectionTable[name] else { continue }
                let key = Self.keyPath(section, name)
                let line = lines.line(section: section, key: name)
                guard let known = ConfigKey.all.first(where: { $0.section == section && $0.name == name }) else {
                    let names = ConfigKey.all.filter { $0.section == section }.map(\.name).joined(separator: ", ")
                    problems.append(
                        ConfigError(file: file, line: line, key: key, problem: "unknown key; [\(section)] knows \(names)"))
                    continue
                }
                do throws(ConfigKey.Problem) {
                    try known.apply(&config, item)
                } catch {
                    problems.append(ConfigError(file: file, line: line, key: key, problem: error.text))
                }
            }
        }
        // A correction measured on one sensor is wrong for any other: it may only apply to the one address.
        if config.device.correction != nil, config.device.address == nil {
            let name = config.device.scale != nil ? "scale" : "offset_kg"
            problems.append(ConfigError(
                file: file, line: lines.line(section: "device", key: name), key: Self.keyPath("device", name),
                problem: "a correction belongs to one sensor: set [device] address too (`griptrack devices --scan` "
                    + "shows it; `griptrack calibrate --write` sets both)"))
        }
        if let error = ConfigError(inLineOrder: problems) { throw error }
        return config
    }

    /// A dotted key as TOML writes it, so a message names the key as the file can spell it: a component that is not a
    /// bare key (letters, digits, `_`, `-`) is quoted, e.g. `app_store.""` for an empty key, `"dé"` for one with
    /// an accent.
    static func keyPath(_ components: String...) -> String {
        components.map { component in
            let bare = !component.isEmpty && component.unicodeScalars.allSatisfy { scalar in
                scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "_"
                    || scalar == "-")
            }
            if bare { return component }
            var quoted = "\""
            for scalar in component.unicodeScalars {
                switch scalar {
                case "\"", "\\": quoted += "\\" + String(scalar)
                case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                    let hex = String(scalar.value, radix: 16, uppercase: true)
                    quoted += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                default: quoted.unicodeScalars.append(scalar)
                }
            }
            return quoted + "\""
        }.joined(separator: ".")
    }

    /// The App Store verifier's configuration.
    ///
    /// - Returns: Bundle id, environment, app Apple ID (0 → none, which Production refuses) and trust roots (the
    ///   files of `trusted_roots`, or the pinned Apple root).
    /// - Throws: ``ConfigError`` naming `app_store.trusted_roots` for an unreadable or non-certificate file.
    package func verifierConfiguration() throws(ConfigError) -> AppStoreVerifier.Configuration {
        var roots: [TrustRoot]?
        if !appStore.trustedRoots.isEmpty {
            var loaded: [TrustRoot] = []
            let base = path.map { URL(fileURLWithPath: $0).deletingLastPathComponent() }
            for root in appStore.trustedRoots {
                let url = root.hasPrefix("/") || base == nil
                    ? URL(fileURLWithPath: root) : base!.appendingPathComponent(root)
                do {
                    let bytes = try Data(contentsOf: url)
                    loaded.append(try TrustRoot(derEncoded: Array(bytes)))
                } catch {
                    throw ConfigError(
                        file: path ?? "(defaults)", line: nil, key: "app_store.trusted_roots",
                        problem: "\(url.path) is not a readable DER certificate (\(error))")
                }
            }
            roots = loaded
        }
        do {
            return try AppStoreVerifier.Configuration(
                bundleId: appStore.bundleId, environment: appStore.environment,
                appAppleId: appStore.appAppleId == 0 && appStore.environment != .production ? nil : appStore.appAppleId,
                trustRoots: roots)
        } catch {
            throw ConfigError(file: path ?? "(defaults)", line: nil, key: "app_store", problem: "\(error)")
        }
    }
}

/// A configuration file that cannot be used: which file, line and key, and what is wrong.
package struct ConfigError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file.
    package var file: String
    /// The 1-based line, when known.
    package var line: Int?
    /// The key as `section.name`, when the problem is one key.
    package var key: String?
    /// What is wrong and what is expected.
    package var problem: String
    /// The file's other problems, after this one in line order (a file is read whole, so each is said at once).
    package var more: [ConfigError] = []

    /// Creates an error.
    ///
    /// - Parameters: See the properties.
    package init(file: String, line: Int?, key: String?, problem: String) {
        self.file = file
        self.line = line
        self.key = key
        self.problem = problem
    }

    /// The first of `problems` in line order (those without a line last) carrying the rest; nil for none.
    init?(inLineOrder problems: [ConfigError]) {
        let ordered = problems.enumerated().sorted { first, second in
            (first.element.line ?? .max, first.offset) < (second.element.line ?? .max, second.offset)
        }.map(\.element)
        guard var first = ordered.first else { return nil }
        first.more = Array(ordered.dropFirst())
        self = first
    }

    /// `"/etc/griptrack/griptrack.toml:3: app_store.environment: expected "Production" or "Sandbox", got "Prod""`,
    /// one line per problem.
    package var description: String {
        ([self] + more).map { problem in
            var text = problem.file
            if let line = problem.line { text += ":\(line)" }
            text += ": "
            if let key = problem.key { text += "\(key): " }
            return text + problem.problem
        }.joined(separator: "\n")
    }
}
