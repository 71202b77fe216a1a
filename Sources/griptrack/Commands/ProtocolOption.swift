import ArgumentParser
import GripAnalysis
import GripConfig

/// `--protocol` as `show`, `label` and `record` take it: a built-in's name, a name from the configuration's
/// `[protocols]`, or notation (docs/protocols.md).
enum ProtocolOption {
    /// - Parameter configured: `[protocols]` of the configuration (built-ins win: the file may not shadow them).
    /// - Throws: A `ValidationError` naming the column of the mistake.
    static func parse(_ text: String, configured: [GriptrackConfig.NamedProtocol] = []) throws -> TrainingProtocol {
        if let builtIn = BuiltInProtocols.named(text) { return builtIn }
        do throws(ProtocolNotationError) {
            return try ProtocolNotation.parse(notation(text, configured: configured))
        } catch {
            throw ValidationError("--protocol \"\(text)\": \(error).")
        }
    }

    /// The text a recording stores: the notation a built-in's or a configured name stands for (so the recording keeps
    /// the test it ran if the file changes), else the notation typed, one spelling per protocol.
    static func storedText(_ text: String, configured: [GriptrackConfig.NamedProtocol] = []) -> String {
        ProtocolNotation.storedText(notation(text, configured: configured))
    }

    /// The configured name's notation, or `text` itself.
    private static func notation(_ text: String, configured: [GriptrackConfig.NamedProtocol]) -> String {
        let wanted = text.trimmingCharacters(in: .whitespaces).lowercased()
        if BuiltInProtocols.all.contains(where: { $0.name == wanted }) { return text }
        return GriptrackConfig.NamedProtocol.named(text, in: configured)?.notation ?? text
    }

    /// `[protocols]` for checking `--protocol` in `validate()`: none when the file cannot be read, which `run()`
    /// reports (exit 5) before anything else, rather than a protocol name it could not look up.
    static func configured(_ common: CommonOptions) -> [GriptrackConfig.NamedProtocol]? {
        try? GriptrackConfig.load(path: common.config ?? GriptrackConfig.defaultPath, required: common.config != nil)
            .protocols
    }
}
