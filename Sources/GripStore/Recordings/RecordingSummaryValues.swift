import Foundation

/// What a finished recording adds to its row.
public struct RecordingSummaryValues: Sendable, Equatable {
    /// Host wall-clock end time (millisecond precision).
    public var endedAt: Date
    /// The highest effort peak in kilograms; `nil` without efforts.
    public var maxKilograms: Double?
    /// The mean of the effort peaks in kilograms; `nil` without efforts.
    public var averageKilograms: Double?

    /// Creates summary values.
    ///
    /// - Parameters:
    ///   - endedAt: Host wall-clock end time.
    ///   - maxKilograms: The highest effort peak, if any.
    ///   - averageKilograms: The mean of the effort peaks, if any.
    public init(endedAt: Date, maxKilograms: Double?, averageKilograms: Double?) {
        self.endedAt = endedAt
        self.maxKilograms = maxKilograms
        self.averageKilograms = averageKilograms
    }
}
