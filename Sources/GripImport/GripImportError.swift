/// Why a file cannot be imported: which file, which line, what is wrong.
///
/// The text is `file:line: what is wrong` (line 1-based; `file: …` when no line is to blame), so an editor or a
/// terminal can jump to it, and the user can fix the file or re-export it from the app.
package struct GripImportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file name as the user gave it (inside a bundle: `bundle.zip/data_set_2.csv`).
    package var file: String
    /// The 1-based line the problem is on; `nil` when it is about the file as a whole.
    package var line: Int?
    /// What is wrong, and where it helps, what was expected.
    package var message: String

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - file: The file name as the user gave it.
    ///   - line: The 1-based line, or `nil` for the whole file.
    ///   - message: What is wrong.
    package init(file: String, line: Int?, _ message: String) {
        self.file = file
        self.line = line
        self.message = message
    }

    /// `file:line: message`, or `file: message`.
    package var description: String {
        if let line { return "\(file):\(line): \(message)" }
        return "\(file): \(message)"
    }
}
