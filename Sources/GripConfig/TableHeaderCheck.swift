/// Finds the table headers TOMLKit cannot be given.
///
/// TOMLKit's C++ parser (toml++ 3) asserts, instead of reporting an error, when a table header's name starts with
/// anything but a bare-key character (`A–Z a–z 0–9 _ -`), a quote or `]`: `[é]`, `[!x]`, or a `[` at the end of a
/// line abort the whole process (and without assertions, the same input is undefined behaviour). So such a header
/// is reported here, with its line, before the text reaches TOMLKit. Headers only start lines (after spaces or
/// tabs): toml++ reads nothing else on a line after a key-value pair or another header.
enum TableHeaderCheck {
    /// The first line (1-based) holding a table header whose name toml++ cannot start parsing, if any.
    static func firstBadHeaderLine(in text: String) -> Int? {
        var lineNumber = 1
        var scalars = text.unicodeScalars[...]
        if scalars.first == "\u{FEFF}" { scalars = scalars.dropFirst() }  // toml++ skips a byte order mark
        while !scalars.isEmpty {
            let line = scalars.prefix { $0 != "\n" }
            if isBadHeader(line) { return lineNumber }
            scalars = scalars.dropFirst(line.count + 1)
            lineNumber += 1
        }
        return nil
    }

    /// Mirrors the start of toml++'s `parse_table_header`: `[`, spaces, an optional second `[` (only right after
    /// the first), spaces, then the name's first character, which `parse_key` asserts on.
    private static func isBadHeader(_ line: Substring.UnicodeScalarView) -> Bool {
        var rest = line.drop { $0 == " " || $0 == "\t" }
        guard rest.first == "[" else { return false }
        rest = rest.dropFirst()
        let afterSpace = rest.drop { $0 == " " || $0 == "\t" }
        if afterSpace.first == "[" {
            if afterSpace.count != rest.count { return false }  // "[ [": toml++ reports it
            rest = afterSpace.dropFirst().drop { $0 == " " || $0 == "\t" }  // [[array of tables]]
        } else {
            rest = afterSpace
        }
        guard let first = rest.first else { return true }  // the end of the line (or file) after the brackets
        switch first {
        case "A"..."Z", "a"..."z", "0"..."9", "_", "-", "\"", "'", "]": return false
        default: return true
        }
    }
}
