/// A force as a percentage of the athlete's body weight (`docs/metrics.md`, "% of body weight"): both in kg(f), so
/// 100 % means the fingers held the whole body. Climbing studies report maximal and critical force this way (Giles
/// et al. 2021: CF as % of body mass explained 61 % of the variance in sport-climbing ability). Pure.
public enum BodyWeightShare {
    /// `forceKg / bodyWeightKg × 100`, or nil without a body weight above zero.
    public static func percent(_ forceKg: Double?, bodyWeightKg: Double?) -> Double? {
        guard let forceKg, let bodyWeightKg, bodyWeightKg > 0 else { return nil }
        return forceKg / bodyWeightKg * 100
    }
}
