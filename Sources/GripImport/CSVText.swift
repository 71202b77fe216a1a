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
///
/// It works on the UTF-8 bytes, not on `Character`s: the structure (`,` `"` CR LF) is ASCII, which never occurs
/// inside a multi-byte UTF-8 sequence, and a long export (an hour at 80 Hz is 300,000 lines) splits several times
/// faster without grapheme breaking.
enum CSVText {
    static func lines(_ bytes: [UInt8], file: String) throws(GripImportError) -> [CSVLine] {
        var result: [CSVLine] = []
        var start = 0
        // A UTF-8 byte order mark, as spreadsheet programs write, is not part of the first field.
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { start = 3 }
        var number = 0
        var index = start
        while index <= bytes.count {
            if index == bytes.count || bytes[index] == 0x0A || bytes[index] == 0x0D {
                number += 1
                result.append(CSVLine(number: number, fields: try fields(of: bytes[start..<index], line: number, file: file)))
                if index + 1 < bytes.count, bytes[index] == 0x0D, bytes[index + 1] == 0x0A { index += 1 }
                start = index + 1
            }
            index += 1
        }
        // The final line break leaves one empty line behind; it is not a line of the file.
        if let last = result.last, last.fields == [""] { result.removeLast() }
        return result
    }

    private static func fields(of line: ArraySlice<UInt8>, line number: Int, file: String) throws(GripImportError) -> [String] {
        let quote: UInt8 = 0x22
        let comma: UInt8 = 0x2C
        // The common case, a line without quotes, is a plain split.
        guard line.contains(quote) else {
            return line.split(separator: comma, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        }
        var fields: [String] = []
        var field: [UInt8] = []
        var quoted = false
        var wasQuoted = false
        var index = line.startIndex
        while index < line.endIndex {
            let byte = line[index]
            index += 1
            if quoted {
                if byte == quote {
                    if index < line.endIndex, line[index] == quote {
                        field.append(quote)
                        index += 1
                    } else {
                        quoted = false
                    }
                } else {
                    field.append(byte)
                }
            } else if byte == comma {
                fields.append(String(decoding: field, as: UTF8.self))
                field = []
                wasQuoted = false
            } else if byte == quote && field.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) && !wasQuoted {
                field = []
                quoted = true
                wasQuoted = true
            } else if wasQuoted && byte != 0x20 {
                throw GripImportError(file: file, line: number, "text after a closing quote in field \(fields.count + 1)")
            } else {
                field.append(byte)
            }
        }
        if quoted { throw GripImportError(file: file, line: number, "unterminated quote in field \(fields.count + 1)") }
        fields.append(String(decoding: field, as: UTF8.self))
        return fields
    }
}

extension String {
    /// Without leading and trailing spaces and tabs (Foundation-free).
    var trimmingSpaces: String {
        guard let first = utf8.first, let last = utf8.last,
            first == 0x20 || first == 0x09 || last == 0x20 || last == 0x09
        else { return self }
        var slice = Substring(self)
        while let first = slice.first, first == " " || first == "\t" { slice.removeFirst() }
        while let last = slice.last, last == " " || last == "\t" { slice.removeLast() }
        return String(slice)
    }
}
