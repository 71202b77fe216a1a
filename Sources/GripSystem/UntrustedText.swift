extension String {
    /// The text as it may appear in a message or a log line when it came from outside (a request, a payload, a
    /// broker): in double quotes, with quotes and backslashes escaped, every control, format (bidi overrides among
    /// them) and line-separator character written as `\u{…}`, and cut to `limit` characters, so that it can
    /// neither forge a line, nor reorder one on a terminal, nor flood one.
    ///
    /// - Parameter limit: The most characters kept before "…".
    /// - Returns: The quoted text, e.g. `"ES256\u{A}"` for a value that ends in a newline.
    package func quotedForLog(limit: Int = 64) -> String {
        var quoted = "\""
        for (index, character) in enumerated() {
            if index == limit {
                quoted += "…"
                break
            }
            for scalar in character.unicodeScalars {
                switch scalar.properties.generalCategory {
                case .control, .format, .lineSeparator, .paragraphSeparator, .surrogate, .unassigned, .privateUse:
                    quoted += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
                default:
                    if scalar == "\"" || scalar == "\\" { quoted += "\\" }
                    quoted.unicodeScalars.append(scalar)
                }
            }
        }
        return quoted + "\""
    }
}
