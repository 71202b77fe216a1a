/// Text that came from the server (an error's message, a parameter) made safe to print and to store: control
/// characters (terminal escape sequences among them) become spaces, and anything past ``limit`` characters is cut
/// with a note. A hostile or broken server can otherwise fill a terminal, a log line or `sync status` with
/// megabytes, or rewrite what the terminal shows.
enum ServerText {
    /// Characters kept: enough for any real PostgreSQL message with its detail.
    static let limit = 500

    /// The cleaned text.
    ///
    /// - Parameter text: What the server (or the library quoting it) said.
    /// - Returns: At most ``limit`` characters plus the cut note, without control characters.
    static func clean(_ text: String) -> String {
        var result = ""
        var kept = 0
        var dropped = 0
        for scalar in text.unicodeScalars {
            guard kept < limit else {
                dropped += 1
                continue
            }
            // C0, DEL and C1 controls (ESC and CSI start escape sequences), and the bidirectional overrides.
            let value = scalar.value
            let isControl = value < 0x20 || (0x7F...0x9F).contains(value) || (0x202A...0x202E).contains(value)
                || (0x2066...0x2069).contains(value)
            result.unicodeScalars.append(isControl ? " " : scalar)
            kept += 1
        }
        if dropped > 0 { result += "… (\(dropped) more characters cut)" }
        return result
    }
}
