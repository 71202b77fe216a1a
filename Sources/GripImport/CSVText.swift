/// One line of a CSV file, split into fields, with its 1-based line number.
struct CSVLine: Sendable, Equatable {
    var number: Int
    var fields: [String]

    /// Every field empty (or no field): a separator line such as `` or `,`.
    var isBlank: Bool { fields.allSatisfy { $0.trimmingSpaces.isEmpty } }

    /// The first field, trimmed and lowercased, for matching labels.
    var key: String { fields.first.map { $0.trimmingSpaces.lowercased() } ?? "" }

    /// The fields without the empty ones at the end: a spreadsheet that re-saves an export pads every line with
    /// commas up to its widest line (`time,weight,,,`), which adds no value.
    var withoutTrailingEmptyFields: [String] {
        var fields = self.fields
        while fields.count > 1, let last = fields.last, last.trimmingSpaces.isEmpty { fields.removeLast() }
        return fields
    }
}

/// Where the bytes of one file come from, a piece at a time, so that a long export is never held whole: the CLI reads
/// a file in chunks; a zip entry or a test hands over one array (``InMemoryBytes``).
package protocol ImportByteSource {
    /// The next bytes of the file, or `nil` at its end.
    ///
    /// - Throws: Whatever reading fails with; the parser passes it on unchanged.
    mutating func nextChunk() throws -> [UInt8]?
}

/// A file already in memory, handed over in one piece.
package struct InMemoryBytes: ImportByteSource, Sendable {
    private var bytes: [UInt8]?

    /// Wraps the bytes of a whole file.
    package init(_ bytes: [UInt8]) { self.bytes = bytes }

    package mutating func nextChunk() -> [UInt8]? {
        defer { bytes = nil }
        return bytes
    }
}

/// Splits the text of a CSV export into lines and fields, one line at a time, as its bytes arrive.
///
/// The app writes CRLF, editors and griptrack's tests LF; both (and a lone CR) end a line. Fields may be quoted with
/// `"` (the endurance test names a field `"Target Zone, lower(% of mvc)"`), with `""` for a quote inside; a quoted
/// field never spans lines in these exports, so a line break inside quotes is reported as an unterminated quote.
///
/// It works on the UTF-8 bytes, not on `Character`s: the structure (`,` `"` CR LF) is ASCII, which never occurs
/// inside a multi-byte UTF-8 sequence, and a long export (an hour at 80 Hz is 300,000 lines) splits several times
/// faster without grapheme breaking. Only the line being read is kept (and the rest of the chunk it came in), so
/// memory does not grow with the file; a line longer than ``maximumLineBytes`` is refused rather than buffered.
struct CSVLines<Source: ImportByteSource> {
    /// Far longer than any line of an export (the app's widest header is a few hundred bytes), short enough that a
    /// file without line breaks cannot make the reader buffer it whole.
    static var maximumLineBytes: Int { 1 << 16 }

    private var source: Source
    let file: String
    private var buffer: [UInt8] = []
    private var position = 0
    private var ended = false
    private var started = false
    private var number = 0
    private var pushedBack: CSVLine?

    init(_ source: Source, file: String) {
        self.source = source
        self.file = file
    }

    /// The number of the last line read (0 before the first).
    var lastNumber: Int { number }

    /// Gives `line` back, so that the next ``next()`` returns it again (one line of look-ahead).
    mutating func pushBack(_ line: CSVLine) { pushedBack = line }

    /// The next line, or `nil` at the end of the file. The final line break is not followed by a line.
    mutating func next() throws -> CSVLine? {
        if let line = pushedBack {
            pushedBack = nil
            return line
        }
        while true {
            var index = position
            let count = buffer.count
            while index < count, buffer[index] != 0x0A, buffer[index] != 0x0D { index += 1 }
            // A CR as the last byte read may be the first half of a CRLF: read on before deciding.
            if index < count, !(buffer[index] == 0x0D && index + 1 == count && !ended) {
                let line = try makeLine(position..<index)
                position = index + 1
                if buffer[index] == 0x0D, position < count, buffer[position] == 0x0A { position += 1 }
                return line
            }
            if ended {
                guard position < count else { return nil }
                let line = try makeLine(position..<count)
                position = count
                return line
            }
            if count - position > Self.maximumLineBytes {
                throw GripImportError(
                    file: file, line: number + 1,
                    "a line longer than \(Self.maximumLineBytes) bytes: this is not a CSV export")
            }
            buffer.removeSubrange(0..<position)
            position = 0
            if let chunk = try source.nextChunk() {
                buffer.append(contentsOf: chunk)
                if !started, buffer.count >= 3 || chunk.isEmpty {
                    started = true
                    // A UTF-8 byte order mark, as spreadsheet programs write, is not part of the first field.
                    if buffer.starts(with: [0xEF, 0xBB, 0xBF]) { position = 3 }
                }
            } else {
                ended = true
                if !started, buffer.starts(with: [0xEF, 0xBB, 0xBF]) { position = 3 }
                started = true
            }
        }
    }

    private mutating func makeLine(_ range: Range<Int>) throws -> CSVLine {
        // The same limit whether the line came whole in one chunk or was still open when the buffer filled.
        guard range.count <= Self.maximumLineBytes else {
            throw GripImportError(
                file: file, line: number + 1, "a line longer than \(Self.maximumLineBytes) bytes: this is not a CSV export")
        }
        number += 1
        let bytes = buffer[range]
        guard String(validating: bytes, as: UTF8.self) != nil else {
            throw GripImportError(file: file, line: number, "not UTF-8 text: is this a CSV export?")
        }
        return CSVLine(number: number, fields: try CSVText.fields(of: bytes, line: number, file: file))
    }
}

enum CSVText {
    /// Every line of a file in memory (tests, and the small files of a bundle).
    static func lines(_ bytes: [UInt8], file: String) throws(GripImportError) -> [CSVLine] {
        var reader = CSVLines(InMemoryBytes(bytes), file: file)
        var result: [CSVLine] = []
        do {
            while let line = try reader.next() { result.append(line) }
        } catch let error as GripImportError {
            throw error
        } catch {
            preconditionFailure("bytes in memory cannot fail to read: \(error)")
        }
        return result
    }

    static func fields(of line: ArraySlice<UInt8>, line number: Int, file: String) throws(GripImportError) -> [String] {
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
