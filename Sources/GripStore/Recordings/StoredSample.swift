/// One force sample exactly as the device sent it.
///
/// Equality compares the float's bit pattern, so a stored sample equals the one written even when it is a NaN or a
/// negative zero: the store is lossless, and tests say so with `==`.
public struct StoredSample: Sendable, Hashable, CustomStringConvertible {
    /// Device time in microseconds, unwrapped (the time base the decoder produced).
    public var micros: Int64
    /// Force in kilograms, the float32 the device reported.
    public var kilograms: Float

    /// Creates a sample.
    ///
    /// - Parameters:
    ///   - micros: Device time in microseconds, unwrapped.
    ///   - kilograms: Force in kilograms as reported.
    public init(micros: Int64, kilograms: Float) {
        self.micros = micros
        self.kilograms = kilograms
    }

    public static func == (lhs: StoredSample, rhs: StoredSample) -> Bool {
        lhs.micros == rhs.micros && lhs.kilograms.bitPattern == rhs.kilograms.bitPattern
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(micros)
        hasher.combine(kilograms.bitPattern)
    }

    public var description: String { "\(micros) µs \(kilograms) kg" }
}
