import Foundation
import GripAnalysis
import TOMLKit

extension GriptrackConfig {
    /// `[protocols]`: a table of the user's own names, each with the notation it stands for (docs/protocols.md).
    static let protocolsSection = "protocols"

    /// One line of `[protocols]`: `"board repeaters" = "repeaters 6x 7:3 @80%"`.
    package struct NamedProtocol: Sendable, Equatable {
        /// What `--protocol` and the web screen's chooser call it.
        package var name: String
        /// The notation as the file writes it; it parsed when the file was read.
        package var notation: String

        package init(name: String, notation: String) {
            self.name = name
            self.notation = notation
        }

        /// The one called `text` among `protocols` (names match as built-ins' do, whatever the case), or nil.
        package static func named(_ text: String, in protocols: [NamedProtocol]) -> NamedProtocol? {
            let wanted = text.trimmingCharacters(in: .whitespaces).lowercased()
            return protocols.first { $0.name.lowercased() == wanted }
        }
    }

    /// The configured protocol called `text` (names match as built-ins' do, whatever the case), or nil.
    package func configuredProtocol(named text: String) -> NamedProtocol? {
        NamedProtocol.named(text, in: protocols)
    }

    /// Reads `[protocols]` in the file's order, each notation through the one parser the CLI, the daemon and the web
    /// screen use, so a protocol the file names always runs.
    static func readProtocols(_ table: TOMLTable, file: String, lines: KeyLines) throws(ConfigError) -> [NamedProtocol] {
        let names = table.keys.sorted { left, right in
            let a = lines.line(section: protocolsSection, key: left) ?? Int.max
            let b = lines.line(section: protocolsSection, key: right) ?? Int.max
            return a == b ? left < right : a < b
        }
        var read: [NamedProtocol] = []
        for name in names {
            guard let value = table[name] else { continue }
            let line = lines.line(section: protocolsSection, key: name)
            let key = keyPath(protocolsSection, name)
            func refuse(_ problem: String) -> ConfigError { ConfigError(file: file, line: line, key: key, problem: problem) }
            guard (1...64).contains(name.count), name.trimmingCharacters(in: .whitespaces) == name,
                !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
            else {
                throw refuse("a protocol's name is 1 to 64 characters on one line, without surrounding spaces, "
                    + "e.g. \"board repeaters\"")
            }
            if BuiltInProtocols.all.contains(where: { $0.name == name.lowercased() }) {
                throw refuse("\"\(name)\" is a built-in protocol's name, and a built-in wins; give yours another name, "
                    + "e.g. \"my \(name.lowercased())\"")
            }
            if let earlier = read.first(where: { $0.name.lowercased() == name.lowercased() }) {
                throw refuse("\"\(name)\" differs from \"\(earlier.name)\" only in case, and names match whatever the "
                    + "case; rename one")
            }
            guard value.type == .string, let notation = value.string else {
                throw refuse("expected protocol notation in quotes, e.g. \"repeaters 6x 7:3 @80%\" (docs/protocols.md)")
            }
            if let problem = RecordingLabel.problem(notation) {
                throw refuse("the notation \(problem)")
            }
            do throws(ProtocolNotationError) {
                _ = try ProtocolNotation.parse(notation)
            } catch {
                throw refuse("\"\(notation)\": \(error.description) (the notation is in docs/protocols.md)")
            }
            read.append(NamedProtocol(name: name, notation: notation))
        }
        return read
    }
}
