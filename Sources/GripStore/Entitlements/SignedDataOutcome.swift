/// The two kinds of signed App Store data that carry their own replay high-water mark per original transaction.
public enum SignedDateHighWaterKind: String, Sendable, Codable, CaseIterable {
    case transaction
    case renewalInfo
}

/// What happened to verified signed data handed to the store.
public enum SignedDataOutcome: Sendable, Equatable {
    /// It was newer than anything seen for its original transaction, and is stored.
    case stored
    /// Its `signedDate` is older than or equal to the newest already accepted for its original transaction (a
    /// replay, or a duplicate), so nothing was written.
    case ignoredAsReplay(newestSignedDateMillis: Double)
}
