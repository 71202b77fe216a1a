import Foundation
import GripProtocol

/// What another app computed for an imported test, stored beside griptrack's own analysis of the same samples
/// (`griptrack import`). The figures are the app's, as it wrote them; `nil` where the file had none.
public struct ImportedFigures: Sendable, Equatable {
    /// Who wrote the file: `tindeq-app`, or `griptrack` for griptrack's own CSV export.
    public var source: String
    /// The file (or bundle) name as the user gave it.
    public var fileName: String
    /// The test: `peak`, `endurance`, `rfd`, `repeaters`, `critical-force` or `recording`.
    public var testType: String
    /// When the test was done, as the file says: local wall-clock `YYYY-MM-DD HH:MM:SS` (the app writes day before
    /// month; this is already in the unambiguous order).
    public var testedAt: String
    /// The app's tag.
    public var tag: String?
    /// The app's comment.
    public var comment: String?
    /// Highest force (kg): `max weight` or `max`.
    public var maxKilograms: Double?
    /// Average force (kg): `avg`.
    public var averageKilograms: Double?
    /// `duration` (s).
    public var durationSeconds: Double?
    /// `mvc` (kg).
    public var mvcKilograms: Double?
    /// `body weight` (kg).
    public var bodyWeightKilograms: Double?
    /// `rfd2080` (kg/s).
    public var rfd2080KilogramsPerSecond: Double?
    /// `rfdInterval` (kg/s).
    public var rfdIntervalKilogramsPerSecond: Double?
    /// `intervalTime (ms)`.
    public var intervalTimeMillis: Double?
    /// `IntervalThreshold` (kg).
    public var intervalThresholdKilograms: Double?
    /// `critical force` (kg).
    public var criticalForceKilograms: Double?
    /// Every header field in the file's order, as written.
    package var fields: [Field]
    /// Per-set (rep 0) and per-rep figures, by set then rep.
    public var reps: [Rep]
    /// Critical force's threshold crossings.
    package var thresholdCrossings: [Crossing]
    /// When it was imported.
    public var importedAt: Date
    /// SHA-256 of the imported bytes (a bundle: of its info.csv and data sets in set order), lower-case hex, by which
    /// a second import of the same export is recognised; `nil` for imports stored before it was kept.
    public var contentDigest: String?

    /// One header field as written; the protocol's type, which the SHOW reply carries as stored.
    package typealias Field = ImportComparison.Field

    /// The app's figures for a rep; `rep == 0` is the whole set.
    public struct Rep: Sendable, Equatable {
        /// From 1.
        public var set: Int
        /// From 1; 0 for the whole set.
        public var rep: Int
        /// The app's `Avg` (kg).
        public var averageKilograms: Double?
        /// The app's `Peak` (kg).
        public var peakKilograms: Double?
        /// Critical force's median value (kg).
        public var medianKilograms: Double?

        /// Creates a rep's figures.
        ///
        /// - Parameters: See the properties of the same names (kg).
        public init(set: Int, rep: Int, averageKilograms: Double?, peakKilograms: Double?, medianKilograms: Double?) {
            self.set = set
            self.rep = rep
            self.averageKilograms = averageKilograms
            self.peakKilograms = peakKilograms
            self.medianKilograms = medianKilograms
        }
    }

    /// A threshold crossing: time (s, the file's timeline) and force (kg); the protocol's type.
    package typealias Crossing = ImportComparison.Crossing

    /// Creates the figures of one import; figures default to none.
    ///
    /// - Parameters:
    ///   - source: `tindeq-app` or `griptrack`.
    ///   - fileName: The file or bundle name.
    ///   - testType: The test.
    ///   - testedAt: Local wall-clock `YYYY-MM-DD HH:MM:SS`.
    ///   - importedAt: The system clock.
    public init(source: String, fileName: String, testType: String, testedAt: String, importedAt: Date) {
        self.source = source
        self.fileName = fileName
        self.testType = testType
        self.testedAt = testedAt
        self.importedAt = importedAt
        fields = []
        reps = []
        thresholdCrossings = []
    }
}
