import Foundation

/// Sets keys of one table in a configuration file's text, keeping everything else as written: comments, order,
/// spacing, the other tables (`griptrack calibrate --write`). Written by hand because TOMLKit writes a document back
/// without its comments, and `/etc/griptrack/griptrack.toml` is the commented example a person edits. Pure.
package enum ConfigFileEdit {
    /// `text` with `values` set in `[section]`: a key's existing line is replaced in place, a new key is added
    /// after the table's last key, and a missing table is added at the end of the file.
    ///
    /// - Parameters:
    ///   - values: Keys and their values as TOML writes them (`1.0312`, `"D0:0D:12:34:56:78"`).
    ///   - section: A bare table name, e.g. `device`.
    ///   - text: The file as it is.
    package static func setting(_ values: [(key: String, value: String)], in section: String, of text: String) -> String {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        let header = lines.firstIndex { tableName(of: $0) == section }
        guard let header else {
            if let last = lines.last, !last.trimmingCharacters(in: .whitespaces).isEmpty { lines.append("") }
            lines.append("[\(section)]")
            lines += values.map { "\($0.key) = \($0.value)" }
            return lines.joined(separator: "\n") + "\n"
        }
        let end = lines[(header + 1)...].firstIndex { tableName(of: $0) != nil || isArrayTable($0) } ?? lines.count
        var lastKey = header
        var pending: [(key: String, value: String)] = []
        for (key, value) in values {
            if let line = (header + 1 ..< end).first(where: { keyName(of: lines[$0]) == key }) {
                lines[line] = "\(key) = \(value)"
            } else {
                pending.append((key, value))
            }
        }
        for line in header + 1 ..< end where keyName(of: lines[line]) != nil { lastKey = line }
        lines.insert(contentsOf: pending.map { "\($0.key) = \($0.value)" }, at: lastKey + 1)
        return lines.joined(separator: "\n") + "\n"
    }

    /// `device` for a line `[device]` (with spaces or a comment after it); nil for any other line.
    private static func tableName(of line: String) -> String? {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        guard trimmed.hasPrefix("["), !trimmed.hasPrefix("[["), let close = trimmed.firstIndex(of: "]") else { return nil }
        return trimmed[trimmed.index(after: trimmed.startIndex)..<close].trimmingCharacters(in: .whitespaces)
    }

    private static func isArrayTable(_ line: String) -> Bool {
        line.trimmingCharacters(in: .whitespaces).hasPrefix("[[")
    }

    /// The bare key a line sets (`scale` for `scale = 1.03`, not for `# scale = 1.03`); nil for other lines.
    private static func keyName(of line: String) -> String? {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        guard let first = trimmed.first, first.isLetter || first.isNumber || first == "_" || first == "-",
            let equals = trimmed.firstIndex(of: "=")
        else { return nil }
        return trimmed[..<equals].trimmingCharacters(in: .whitespaces)
    }
}
