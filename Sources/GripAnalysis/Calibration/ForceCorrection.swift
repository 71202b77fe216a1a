/// A person's own correction of a sensor that reads a few percent off (`docs/calibration.md`): every decoded force
/// becomes `raw × scale + offset`, after decoding and before segmentation, so efforts, peaks and the store all see
/// the corrected force. A recording keeps the correction it was made with, so its raw readings stay known.
/// Pure.
public struct ForceCorrection: Sendable, Hashable, Codable {
    /// The factor a raw reading is multiplied by.
    public var scale: Double
    /// Kilograms added after scaling (what the sensor reads unloaded, negated and scaled).
    public var offsetKilograms: Double

    /// Scales a sensor can need and still be worth correcting: a sensor further off is broken, mis-configured (the
    /// wrong profile or units) or was calibrated with the wrong weight, and a correction would hide that.
    public static let scaleRange = 0.5...2.0
    /// Offsets in kilograms (the same reasoning: more than this unloaded is a sensor that needs a tare or a repair).
    public static let offsetRange = -50.0...50.0

    /// - Parameters: See the properties; both must lie in their ranges (``check()``).
    public init(scale: Double = 1, offsetKilograms: Double = 0) {
        self.scale = scale
        self.offsetKilograms = offsetKilograms
    }

    /// Why this correction cannot be used, or nil.
    public func check() -> String? {
        guard scale.isFinite, Self.scaleRange.contains(scale) else {
            return "a scale of \(Self.rounded(scale, 3)) is outside \(Self.scaleRange.lowerBound)–\(Self.scaleRange.upperBound): "
                + "a sensor that far off needs its profile, units or a repair checked, not a correction"
        }
        guard offsetKilograms.isFinite, Self.offsetRange.contains(offsetKilograms) else {
            return "an offset of \(Self.rounded(offsetKilograms, 2)) kg is outside \(Self.offsetRange.lowerBound)–"
                + "\(Self.offsetRange.upperBound) kg: tare the sensor instead"
        }
        return nil
    }

    /// `value` to `places` decimals, for a message (Foundation's formatting is not imported here).
    private static func rounded(_ value: Double, _ places: Int) -> Double {
        guard value.isFinite else { return value }
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        return (value * scale).rounded() / scale
    }

    /// The corrected force of a raw reading (kg). Float arithmetic, as the pipeline's samples are float32.
    @inlinable
    public func corrected(_ raw: Float) -> Float {
        raw * Float(scale) + Float(offsetKilograms)
    }

    /// The raw reading a corrected force came from (kg): what the sensor itself reported.
    public func raw(_ corrected: Double) -> Double {
        (corrected - offsetKilograms) / scale
    }

    /// Whether this correction changes nothing (scale 1, offset 0).
    public var isIdentity: Bool { scale == 1 && offsetKilograms == 0 }

    /// Why two readings give no correction.
    public enum FitFailure: Error, Sendable, Equatable, CustomStringConvertible {
        /// The known weight is not a plausible positive number of kilograms.
        case knownWeight(Double)
        /// The loaded reading is not clearly above the unloaded one.
        case noLoad(unloaded: Double, loaded: Double)
        /// The correction the readings give is outside the usable ranges.
        case outOfRange(ForceCorrection, reason: String)

        public var description: String {
            switch self {
            case .knownWeight(let kilograms):
                "the known weight must be between 1 and 500 kg, got \(kilograms)"
            case .noLoad(let unloaded, let loaded):
                "the sensor read \(Self.kilograms(loaded)) loaded and \(Self.kilograms(unloaded)) unloaded: hang the "
                    + "weight from the sensor itself (not beside it) and let it settle before you go on"
            case .outOfRange(_, let reason):
                reason
            }
        }

        private static func kilograms(_ value: Double) -> String { "\(ForceCorrection.rounded(value, 2)) kg" }
    }

    /// The correction that makes a sensor read 0 unloaded and `knownKilograms` under a known weight.
    ///
    /// - Parameters:
    ///   - unloaded: The sensor's raw reading with nothing on it (kg).
    ///   - loaded: Its raw reading with the known weight hanging from it (kg).
    ///   - knownKilograms: The weight's true mass (kg), e.g. from a kitchen or luggage scale.
    /// - Throws: ``FitFailure`` when the readings cannot give a usable correction.
    public static func fit(
        unloaded: Double, loaded: Double, knownKilograms: Double
    ) throws(FitFailure) -> ForceCorrection {
        guard knownKilograms.isFinite, (1...500).contains(knownKilograms) else { throw .knownWeight(knownKilograms) }
        // Less than half a kilogram between the two readings is noise, whatever the weight.
        guard unloaded.isFinite, loaded.isFinite, loaded - unloaded >= 0.5 else {
            throw .noLoad(unloaded: unloaded, loaded: loaded)
        }
        let scale = knownKilograms / (loaded - unloaded)
        let correction = ForceCorrection(scale: scale, offsetKilograms: -unloaded * scale)
        if let reason = correction.check() { throw .outOfRange(correction, reason: reason) }
        return correction
    }
}

extension ForceCorrection {
    /// The correction a stored recording names, or nil when it names none (the store keeps both columns or neither).
    public init?(storedScale scale: Double?, offsetKilograms: Double?) {
        guard let scale else { return nil }
        self.init(scale: scale, offsetKilograms: offsetKilograms ?? 0)
    }
}
