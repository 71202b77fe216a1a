import Foundation
import GripEntitlements
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
    ]

    private static func bool(_ value: any TOMLValueConvertible) throws(Problem) -> Bool {
        guard value.type == .bool, let bool = value.bool else {
            throw Problem(text: "expected true or false, got \(describe(value))")
        }
        return bool
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
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
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
