/// What the admission decision sees when a recording asks to start: counted inside the same IMMEDIATE transaction
/// that will insert the recording, so no other process can change it in between.
public struct StoredCount: Sendable, Equatable {
    /// Every stored recording, whatever its state (one being recorded holds its slot too).
    public var recordings: Int

    /// Creates a count.
    ///
    /// - Parameter recordings: The number of stored recordings.
    public init(recordings: Int) {
        self.recordings = recordings
    }
}

/// The answer of the entitlement policy to "may one more recording be stored?".
public enum AdmissionDecision: Sendable, Equatable {
    /// Store it.
    case admit
    /// Do not store it; `reason` is shown to the user verbatim (what happened and what to do).
    case refuse(reason: String)
}
