extension ProtocolNotation {
    /// The text a recording stores for a protocol typed as `text`: a built-in's notation for its name, else the words
    /// lowercased and one space apart.
    ///
    /// The built-in's notation rather than its name, so a recording keeps the test it ran if a built-in changes;
    /// one spelling per protocol, so `Repeaters  6x 7:3` and `repeaters 6x 7:3` group as one protocol in trends.
    ///
    /// - Parameter text: A built-in's name or notation, as `--protocol` takes it.
    /// - Returns: The text to store; parse it with ``parse(_:)``.
    public static func storedText(_ text: String) -> String {
        if let builtIn = BuiltInProtocols.all.first(where: { $0.name == text.lowercased() }) { return builtIn.notation }
        return words(text).map { $0.text.lowercased() }.joined(separator: " ")
    }
}
