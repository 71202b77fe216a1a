/// Where a recording is in its life.
public enum RecordingState: String, Sendable, Codable, CaseIterable {
    /// Samples are being appended; the recording holds one of the stored-recording slots.
    case recording
    /// The recorder finished it normally (stop, session gap, disconnect).
    case complete
    /// Its recorder died (crash, SIGKILL, power cut); it was closed when the store was next opened, keeping every
    /// committed sample chunk.
    case recovered
}

/// The hand a recording was made with, when the user said so.
public enum Hand: String, Sendable, Codable, CaseIterable {
    case left
    case right
    /// Both hands on the device at once (a two-handed hang on one sensor).
    case both
}
