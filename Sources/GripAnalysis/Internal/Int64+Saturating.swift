// Saturating time arithmetic: timeline values come from callers, so extreme values must clamp, never trap.

extension Int64 {
    /// `self + other`, clamped to `Int64.min ... Int64.max`.
    @inlinable
    func saturatingAdding(_ other: Int64) -> Int64 {
        let (sum, overflow) = addingReportingOverflow(other)
        if !overflow { return sum }
        return other > 0 ? .max : .min
    }

    /// `self - other`, clamped to `Int64.min ... Int64.max`.
    @inlinable
    func saturatingSubtracting(_ other: Int64) -> Int64 {
        let (difference, overflow) = subtractingReportingOverflow(other)
        if !overflow { return difference }
        return other < 0 ? .max : .min
    }

    /// Converts a `Double` to `Int64`, rounding to nearest and clamping to `lower ... upper`; NaN gives `lower`.
    @inlinable
    static func clamping(_ value: Double, rounded: Bool = true, lower: Int64, upper: Int64) -> Int64 {
        let value = rounded ? value.rounded() : value
        guard value > Double(lower) else { return lower }  // also catches NaN
        guard value < Double(upper) else { return upper }
        return Swift.min(Swift.max(Int64(value), lower), upper)
    }
}
