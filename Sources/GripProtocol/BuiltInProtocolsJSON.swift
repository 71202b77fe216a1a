import GripAnalysis

/// The built-ins as `GET /api/protocols` lists them.
package struct BuiltInProtocolsJSON: Encodable, Sendable {
    package struct Entry: Encodable, Sendable {
        package var name: String
        package var notation: String
        package var kind: String
    }

    package var protocols: [Entry]
    package var textLimit: Int

    package init() {
        protocols = BuiltInProtocols.all.compactMap { builtIn in
            guard let training = try? ProtocolNotation.parse(builtIn.notation) else { return nil }
            return Entry(name: builtIn.name, notation: builtIn.notation, kind: training.kind.rawValue)
        }
        textLimit = TrainingPlanJSON.textLimit
    }
}
