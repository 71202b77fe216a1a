/// One force sample exactly as the device reported it.
///
/// The value is kept lossless (the float32 the device sent) together with the device's own clock, so the
/// store can keep what the device said and analysis can decide how to interpret it.
public struct RawSample: Sendable, Equatable {
    /// Device time in microseconds since the last START command. Wraps at 2³² (≈71.6 min); see
    /// `GripAnalysis.DeviceClock` for unwrapping.
    public var deviceMicros: UInt32
    /// Force in kilogram-force, as reported (not baseline-subtracted).
    public var kilograms: Float

    public init(deviceMicros: UInt32, kilograms: Float) {
        self.deviceMicros = deviceMicros
        self.kilograms = kilograms
    }
}
