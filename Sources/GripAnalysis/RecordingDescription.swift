/// A change to what a recording says about itself (`griptrack label`, `griptrack record`, the socket's LABEL): every
/// field given replaces the stored one, an empty text clears it, an absent field keeps it.
public struct RecordingDescription: Sendable, Equatable {
    /// The hand.
    public var hand: Hand?
    /// The label; `""` clears it.
    public var label: String?
    /// The athlete; `""` clears it.
    public var athlete: String?
    /// The grip; `""` clears it.
    public var grip: String?
    /// The edge depth (mm).
    public var edgeMillimetres: Double?
    /// The body weight (kg).
    public var bodyWeightKilograms: Double?
    /// The protocol the recording ran, as notation (`docs/protocols.md`); `""` clears it. Store
    /// ``ProtocolNotation/storedText(_:)`` of what was typed.
    public var protocolNotation: String?
    /// The athlete's max the protocol's target band is a percentage of (kg).
    public var protocolMaxKilograms: Double?

    /// The plausible edge depths (mm): from a 2 mm crimp rail to a 100 mm jug or sloper.
    public static let edgeRange: ClosedRange<Double> = 1...100
    /// The plausible body weights (kg).
    public static let bodyWeightRange: ClosedRange<Double> = 15...250
    /// The plausible maxima a band is taken from (kg): above any supported device's range, so only nonsense fails.
    public static let protocolMaxRange: ClosedRange<Double> = 1...500

    /// - Parameters: See the properties; absent keeps the stored value.
    public init(
        hand: Hand? = nil, label: String? = nil, athlete: String? = nil, grip: String? = nil,
        edgeMillimetres: Double? = nil, bodyWeightKilograms: Double? = nil, protocolNotation: String? = nil,
        protocolMaxKilograms: Double? = nil
    ) {
        self.hand = hand
        self.label = label
        self.athlete = athlete
        self.grip = grip
        self.edgeMillimetres = edgeMillimetres
        self.bodyWeightKilograms = bodyWeightKilograms
        self.protocolNotation = protocolNotation
        self.protocolMaxKilograms = protocolMaxKilograms
    }

    /// Whether it changes nothing.
    public var isEmpty: Bool { self == RecordingDescription() }

    /// What is wrong with it, naming the field (e.g. `edge depth 0.5 mm is outside 1–100 mm`), or nil.
    public var problem: String? {
        for (name, text) in [("label", label), ("athlete", athlete), ("grip", grip)] {
            if let text, let problem = RecordingLabel.problem(text) { return "\(name) \(problem)" }
        }
        if let edge = edgeMillimetres, !Self.edgeRange.contains(edge) {
            return "edge depth \(edge) mm is outside \(Int(Self.edgeRange.lowerBound))–\(Int(Self.edgeRange.upperBound)) mm"
        }
        if let weight = bodyWeightKilograms, !Self.bodyWeightRange.contains(weight) {
            return "body weight \(weight) kg is outside "
                + "\(Int(Self.bodyWeightRange.lowerBound))–\(Int(Self.bodyWeightRange.upperBound)) kg"
        }
        if let notation = protocolNotation, !notation.isEmpty {
            if let problem = RecordingLabel.problem(notation) { return "protocol \(problem)" }
            do throws(ProtocolNotationError) {
                _ = try ProtocolNotation.parse(notation)
            } catch {
                return "protocol \"\(notation)\": \(error)"
            }
        }
        if let max = protocolMaxKilograms, !Self.protocolMaxRange.contains(max) {
            return "protocol max \(max) kg is outside "
                + "\(Int(Self.protocolMaxRange.lowerBound))–\(Int(Self.protocolMaxRange.upperBound)) kg"
        }
        return nil
    }
}
