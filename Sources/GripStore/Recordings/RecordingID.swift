/// The identity of a stored recording: its row id in the `recording` table.
///
/// Ids are never reused, even after a recording is deleted.
public struct RecordingID: RawRepresentable, Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    /// The SQLite row id.
    public let rawValue: Int64

    /// Wraps a row id, e.g. one typed by a user (`griptrack show 12`).
    ///
    /// - Parameter rawValue: The SQLite row id.
    public init(rawValue: Int64) {
        self.rawValue = rawValue
    }

    /// The row id as decimal digits, as the CLI prints and accepts it.
    public var description: String { String(rawValue) }

    public static func < (lhs: RecordingID, rhs: RecordingID) -> Bool { lhs.rawValue < rhs.rawValue }
}
