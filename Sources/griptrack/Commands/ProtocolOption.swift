import ArgumentParser
import GripAnalysis

/// `--protocol` as `show` and `record` take it: a built-in's name or notation (docs/protocols.md).
enum ProtocolOption {
    /// - Throws: A `ValidationError` naming the column of the mistake.
    static func parse(_ text: String) throws -> TrainingProtocol {
        if let builtIn = BuiltInProtocols.named(text) { return builtIn }
        do throws(ProtocolNotationError) {
            return try ProtocolNotation.parse(text)
        } catch {
            throw ValidationError("--protocol \"\(text)\": \(error).")
        }
    }
}
