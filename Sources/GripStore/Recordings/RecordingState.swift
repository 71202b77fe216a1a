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
