import GripAnalysis

/// Who pulled and on what, beside the hand and label: the athlete (several people may share one station), the grip,
/// the edge depth and the athlete's body weight at the time. Each is absent until someone says; `% of body weight`
/// figures need the last one (`docs/metrics.md`).
public struct RecordingSetup: Sendable, Equatable, Codable {
    /// The athlete's name as typed (one line, ``RecordingLabel`` rules).
    public var athlete: String?
    /// The grip, e.g. `half crimp`, `open`, `pinch` (one line, ``RecordingLabel`` rules).
    public var grip: String?
    /// The edge depth (mm).
    public var edgeMillimetres: Double?
    /// The athlete's body weight when recorded (kg).
    public var bodyWeightKilograms: Double?

    /// - Parameters: See the properties.
    public init(
        athlete: String? = nil, grip: String? = nil, edgeMillimetres: Double? = nil, bodyWeightKilograms: Double? = nil
    ) {
        self.athlete = athlete
        self.grip = grip
        self.edgeMillimetres = edgeMillimetres
        self.bodyWeightKilograms = bodyWeightKilograms
    }
}
