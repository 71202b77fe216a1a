import GripAnalysis

/// The protocols one can run by name, as `GET /api/protocols` and `griptrack protocols --json` list them: the
/// built-ins, then the configuration's `[protocols]` (docs/protocols.md).
package struct ProtocolListJSON: Encodable, Sendable {
    package struct Entry: Encodable, Sendable, Equatable {
        package var name: String
        package var notation: String
        package var kind: String
        /// `built-in`, or `config` for a `[protocols]` line of griptrack.toml.
        package var source: String
    }

    package var protocols: [Entry]
    package var textLimit: Int

    /// - Parameter configured: `[protocols]` as name and notation, in the file's order; the file was checked when
    ///   it loaded, and a line that would not parse is left out rather than listed broken.
    package init(configured: [(name: String, notation: String)] = []) {
        let builtIns = BuiltInProtocols.all.map { Entry(name: $0.name, notation: $0.notation, kind: "", source: "built-in") }
        let own = configured.map { Entry(name: $0.name, notation: $0.notation, kind: "", source: "config") }
        protocols = (builtIns + own).compactMap { entry in
            guard let training = try? ProtocolNotation.parse(entry.notation) else { return nil }
            var read = entry
            read.kind = training.kind.rawValue
            return read
        }
        textLimit = TrainingPlanJSON.textLimit
    }
}
