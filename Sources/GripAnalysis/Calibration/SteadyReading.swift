/// Whether a sensor's reading has settled, and at what: the mean of the last window of samples once they all lie
/// within a tolerance of each other (`griptrack calibrate` reads each step's force this way). Pure.
public struct SteadyReading: Sendable {
    /// How long the reading must hold still (µs).
    public let windowMicros: Int64
    /// The spread allowed inside the window: this many kilograms, or ``relativeTolerance`` of the reading when more.
    public let toleranceKilograms: Double
    /// The spread allowed, as a fraction of the reading (a heavy weight sways more in kilograms).
    public let relativeTolerance: Double
    private var window: [(micros: Int64, kilograms: Double)] = []

    /// - Parameters: See the properties.
    public init(windowMicros: Int64 = 2_000_000, toleranceKilograms: Double = 0.25, relativeTolerance: Double = 0.01) {
        self.windowMicros = windowMicros
        self.toleranceKilograms = toleranceKilograms
        self.relativeTolerance = relativeTolerance
    }

    /// Adds a sample; samples must come in time order (a later time restarts the window if it goes back).
    public mutating func add(micros: Int64, kilograms: Double) {
        guard kilograms.isFinite else { return }
        if let last = window.last, micros < last.micros { window.removeAll() }
        window.append((micros, kilograms))
        let oldest = micros - windowMicros
        // Keep one sample at or before the window's start, so the window is known to cover its whole length.
        while window.count > 1, window[1].micros <= oldest { window.removeFirst() }
    }

    /// Starts again (the person moved on to the next step).
    public mutating func reset() { window.removeAll() }

    /// The window's mean once it covers ``windowMicros`` and its spread is within tolerance; nil before.
    public var steadyKilograms: Double? {
        guard let first = window.first, let last = window.last, last.micros - first.micros >= windowMicros else {
            return nil
        }
        var low = Double.infinity
        var high = -Double.infinity
        var sum = 0.0
        for sample in window {
            low = min(low, sample.kilograms)
            high = max(high, sample.kilograms)
            sum += sample.kilograms
        }
        let mean = sum / Double(window.count)
        return high - low <= max(toleranceKilograms, relativeTolerance * abs(mean)) ? mean : nil
    }

    /// The spread of the samples in the window so far (kg), for a progress line.
    public var spreadKilograms: Double {
        guard let low = window.map(\.kilograms).min(), let high = window.map(\.kilograms).max() else { return 0 }
        return high - low
    }
}
