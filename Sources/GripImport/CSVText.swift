/// One line of a CSV file, split into fields, with its 1-based line number.
struct CSVLine: Sendable, Equatable {
    var number: Int
    var fields: [String]

    /// Every field empty (or no field): a separator line such as `` or `,`.
    var isBlank: Bool { fields.allSatisfy { $0.trimmingSpaces.isEmpty } }

    /// The first field, trimmed and lowercased, for matching labels.
    var key: String { fields.first.map { $0.trimmingSpaces.lowercased() } ?? "" }
}

/// Splits the text of a CSV export into lines and fields.
///
/// The app writes CRLF, editors and griptrack's tests LF; both (and a lone CR) end a line. Fields may be quoted with
/// `"` (the endurance test names a field `"Target Zone, lower(% of mvc)"`), with `""` for a quote inside; a quoted
/// field never spans lines in these exports, so a line break inside quotes is reported as an unterminated quote.
enum CSVText {
    static func lines(_ text: String, file: String) throws(GripImportError) -> [CSVLine] {
        var result: [CSVLine] = []
        var number = 0
        var body = Substring(text)
        // A UTF-8 byte order mark, as spreadsheet programs write, is not part of the first field.
        if body.first == "\u{FEFF}" { body = body.dropFirst() }
        for raw in body.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r" || $0 == "\r\n" }) {
            number += 1
            result.append(CSVLine(number: number, fields: try fields(of: raw, line: number, file: file)))
        }
        // The final line break leaves one empty line behind; it is not a line of the file.
        if let last = result.last, last.fields == [""] { result.removeLast() }
        return result
    }

    private static func fields(of line: Substring, line number: Int, file: String) throws(GripImportError) -> [String] {
        var fields: [String] = []
        var field = ""
        var quoted = false
        var wasQuoted = false
        var index = line.startIndex
        while index < line.endIndex {
            let character = line[index]
            index = line.index(after: index)
            if quoted {
                if character == "\"" {
                    if index < line.endIndex, line[index] == "\"" {
                        field.append("\"")
                        index = line.index(after: index)
                    } else {
                        quoted = false
                    }
                } else {
                    field.append(character)
                }
            } else if character == "," {
                fields.append(field)
                field = ""
                wasQuoted = false
            } else if character == "\"" && field.trimmingSpaces.isEmpty && !wasQuoted {
                field = ""
                quoted = true
                wasQuoted = true
            } else if wasQuoted && character != " " {
                throw GripImportError(file: file, line: number, "text after a closing quote in field \(fields.count + 1)")
            } else {
                field.append(character)
            }
        }
        if quoted { throw GripImportError(file: file, line: number, "unterminated quote in field \(fields.count + 1)") }
        fields.append(field)
        return fields
    }
}

extension String {
    /// Without leading and trailing spaces and tabs (Foundation-free).
    var trimmingSpaces: String {
        var slice = Substring(self)
        while let first = slice.first, first == " " || first == "\t" { slice.removeFirst() }
        while let last = slice.last, last == " " || last == "\t" { slice.removeLast() }
        return String(slice)
    }
}
