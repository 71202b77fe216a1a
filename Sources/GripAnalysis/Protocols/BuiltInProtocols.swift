/// The five tests every climber's sensor app offers, as notation (`docs/protocols.md`, "Built-ins").
public enum BuiltInProtocols {
    /// Name and notation, in the order `griptrack` lists them.
    public static let all: [(name: String, notation: String)] = [
        ("max", "max 3x 10s rest 180s alternate"),
        ("repeaters", "repeaters 6x 7:3 @80%"),
        ("cf", "cf 24x 7:3"),
        ("rfd", "rfd 3x rest 60s"),
        ("endurance", "endurance @40-80%"),
    ]

    /// The built-in called `name`, parsed.
    public static func named(_ name: String) -> TrainingProtocol? {
        guard let notation = all.first(where: { $0.name == name.lowercased() })?.notation else { return nil }
        return try? ProtocolNotation.parse(notation)
    }
}
