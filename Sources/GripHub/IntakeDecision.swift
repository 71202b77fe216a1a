import GripSync

/// What the hub does with one notification request, decided before anything is stored.
enum IntakeDecision: Sendable, Equatable {
    /// Verified: store it, then answer 200 (only after the commit).
    case store(ArchivedNotification)
    /// Refused: answer `status` and log `reason` once; nothing is stored. A 4xx tells the App Store not to retry a
    /// request that can never succeed; a 503 asks it to retry (this hub's clock is behind the signature).
    case refuse(status: Int, reason: String)
}
