/// The hand a recording was made with, when the user said so.
public enum Hand: String, Sendable, Codable, CaseIterable {
    case left
    case right
    /// Both hands on the device at once (a two-handed hang on one sensor).
    case both
}
