/// One effort as rep matching needs it: when it ran (stream µs).
public struct PerformedRep: Sendable, Equatable {
    /// Onset (stream µs).
    public var startMicros: Int64
    /// End (stream µs).
    public var endMicros: Int64
    /// Time-weighted mean force (kg).
    public var meanKg: Double
    /// Highest force (kg).
    public var peakKg: Double

    /// - Parameters: See the properties.
    public init(startMicros: Int64, endMicros: Int64, meanKg: Double, peakKg: Double) {
        self.startMicros = startMicros
        self.endMicros = endMicros
        self.meanKg = meanKg
        self.peakKg = peakKg
    }
}
