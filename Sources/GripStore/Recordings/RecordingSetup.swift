import GripAnalysis

/// Who pulled and on what, beside the hand and label: the athlete (several people may share one station), the grip,
/// the edge depth, the athlete's body weight at the time, and the protocol run with the max its band came from
/// (v9). Each is absent until someone says; `% of body weight` figures need the body weight (`docs/metrics.md`).
public struct RecordingSetup: Sendable, Equatable, Codable {
    /// The athlete's name as typed (one line, ``RecordingLabel`` rules).
    public var athlete: String?
    /// The grip, e.g. `half crimp`, `open`, `pinch` (one line, ``RecordingLabel`` rules).
    public var grip: String?
    /// The edge depth (mm).
    public var edgeMillimetres: Double?
    /// The athlete's body weight when recorded (kg).
    public var bodyWeightKilograms: Double?
    /// The protocol `griptrack record --protocol` ran, as notation (``ProtocolNotation/storedText(_:)``), v9.
    public var protocolNotation: String?
    /// The athlete's max the protocol's target band was a percentage of (kg), v9.
    public var protocolMaxKilograms: Double?

    /// - Parameters: See the properties.
    public init(
        athlete: String? = nil, grip: String? = nil, edgeMillimetres: Double? = nil, bodyWeightKilograms: Double? = nil,
        protocolNotation: String? = nil, protocolMaxKilograms: Double? = nil
    ) {
        self.athlete = athlete
        self.grip = grip
        self.edgeMillimetres = edgeMillimetres
        self.bodyWeightKilograms = bodyWeightKilograms
        self.protocolNotation = protocolNotation
        self.protocolMaxKilograms = protocolMaxKilograms
    }
}
