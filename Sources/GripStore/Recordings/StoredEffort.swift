/// One effort (rep) of a recording with its metrics, as computed by the analysis.
public struct StoredEffort: Sendable, Equatable {
    /// Position in the recording, from 0.
    public var index: Int
    /// Device time of the effort's first sample, in microseconds (unwrapped).
    public var startMicros: Int64
    /// Device time of the effort's last sample, in microseconds (unwrapped).
    public var endMicros: Int64
    /// Highest force in kilograms.
    public var peakKilograms: Double
    /// Mean force over the effort in kilograms.
    public var meanKilograms: Double
    /// Duration in microseconds.
    public var durationMicros: Int64
    /// Time from the effort's start to its peak, in microseconds.
    public var timeToPeakMicros: Int64
    /// Rate of force development 20–80 % in kilograms per second, when it could be computed.
    public var rfdKilogramsPerSecond: Double?
    /// Impulse (force integrated over time) in kilogram-seconds.
    public var impulseKilogramSeconds: Double
    /// The baseline the effort was measured against, in kilograms.
    public var baselineKilograms: Double
    /// Whether the effort was still open when the stream ended (truncated).
    public var isOpen: Bool
    /// Whether the effort was already under way when the stream started (its rise was not seen).
    public var isOpenStart: Bool

    /// Creates an effort value.
    ///
    /// - Parameters: See the properties; times are device microseconds, forces kilograms.
    public init(
        index: Int, startMicros: Int64, endMicros: Int64, peakKilograms: Double, meanKilograms: Double,
        durationMicros: Int64, timeToPeakMicros: Int64, rfdKilogramsPerSecond: Double?,
        impulseKilogramSeconds: Double, baselineKilograms: Double, isOpenStart: Bool = false, isOpen: Bool
    ) {
        self.index = index
        self.startMicros = startMicros
        self.endMicros = endMicros
        self.peakKilograms = peakKilograms
        self.meanKilograms = meanKilograms
        self.durationMicros = durationMicros
        self.timeToPeakMicros = timeToPeakMicros
        self.rfdKilogramsPerSecond = rfdKilogramsPerSecond
        self.impulseKilogramSeconds = impulseKilogramSeconds
        self.baselineKilograms = baselineKilograms
        self.isOpen = isOpen
        self.isOpenStart = isOpenStart
    }
}
