/// One force sample on the stream timeline.
///
/// Time is **stream microseconds**: device time unwrapped by ``DeviceClock`` (monotonic `Int64`). Force is the
/// value the device reported, in kilogram-force, not baseline-subtracted.
public struct ForceSample: Sendable, Equatable, Codable {
    /// Sample time on the stream timeline (µs).
    public var micros: Int64
    /// Force as reported by the device (kg, kilogram-force).
    public var kilograms: Float

    /// Creates a sample.
    ///
    /// - Parameters:
    ///   - micros: Sample time on the stream timeline (µs).
    ///   - kilograms: Force as reported (kg).
    public init(micros: Int64, kilograms: Float) {
        self.micros = micros
        self.kilograms = kilograms
    }
}
