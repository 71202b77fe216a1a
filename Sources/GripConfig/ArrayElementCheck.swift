/// Finds the `}` TOMLKit cannot be given where an array element belongs.
///
/// TOMLKit's C++ parser (toml++ 3) asserts, instead of reporting an error, when an array's next element starts with
/// `}`: `trusted_roots = [}` or `x = [1, }` abort the whole process (and without assertions, the same input is
/// undefined behaviour). So such a `}` is reported here, with its line, before the text reaches TOMLKit.
///
/// The rule is wider than toml++'s bug and still only refuses invalid TOML 1.0: outside strings and comments, a `}`
/// whose previous significant character is `[` or `,` (whitespace, line breaks and comments in between) is never
/// valid: not in an array, not in a table header, and not in an inline table, which allows no trailing comma.
enum ArrayElementCheck {
    /// The line (1-based) of the first `}` that follows `[` or `,`, if any.
    static func firstMisplacedBraceLine(in text: String) -> Int? {
        let scalars = Array(text.unicodeScalars)
        var index = 0
        var line = 1
        var previous: Unicode.Scalar?
        while index < scalars.count {
            let scalar = scalars[index]
            switch scalar {
            case "\n":
                line += 1
                index += 1
            case " ", "\t", "\r", "\u{FEFF}":
                index += 1
            case "#":
                while index < scalars.count && scalars[index] != "\n" { index += 1 }
            case "\"", "'":
                index = endOfString(scalars, from: index, line: &line)
                previous = scalar
            case "}":
                if previous == "[" || previous == "," { return line }
                previous = scalar
                index += 1
            default:
                previous = scalar
                index += 1
            }
        }
        return nil
    }

    /// The index after the string that starts at `start` (a quote), counting the line breaks inside it. Basic
    /// strings (`"`) have backslash escapes, literal ones (`'`) none; tripled quotes make it multi-line. An
    /// unterminated string ends at the line break (single-line) or the end of the text: toml++ reports those.
    private static func endOfString(_ scalars: [Unicode.Scalar], from start: Int, line: inout Int) -> Int {
        let quote = scalars[start]
        let escapes = quote == "\""
        let multiline = start + 2 < scalars.count && scalars[start + 1] == quote && scalars[start + 2] == quote
        var index = start + (multiline ? 3 : 1)
        while index < scalars.count {
            let scalar = scalars[index]
            if escapes && scalar == "\\" {
                if index + 1 < scalars.count && scalars[index + 1] == "\n" { line += 1 }
                index += 2
                continue
            }
            if scalar == "\n" {
                if !multiline { return index }
                line += 1
            }
            if scalar == quote {
                if !multiline { return index + 1 }
                if index + 2 < scalars.count && scalars[index + 1] == quote && scalars[index + 2] == quote {
                    // Up to two more quotes belong to the string: `""""` closes after one quote of content.
                    var end = index + 3
                    while end < scalars.count && end < index + 5 && scalars[end] == quote { end += 1 }
                    return end
                }
            }
            index += 1
        }
        return index
    }
}
