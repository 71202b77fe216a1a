/// Everything persisted that the entitlement resolver reads, in one consistent snapshot.
public struct StoredEntitlementState: Sendable, Equatable {
    /// The manual override, if one is set (expired or not: the resolver decides).
    public var manualOverride: ManualGrant?
    /// Verified transactions, oldest `signedDate` first.
    public var transactions: [StoredTransaction]
    /// The newest verified renewal info per original transaction, oldest `signedDate` first.
    public var renewals: [StoredRenewalInfo]
    /// The newest accepted `signedDate` (ms) per original transaction, across transactions and renewal infos.
    public var newestSignedDateMillis: [String: Double]

    /// Creates a snapshot value.
    ///
    /// - Parameters: See the properties.
    public init(
        manualOverride: ManualGrant?, transactions: [StoredTransaction], renewals: [StoredRenewalInfo],
        newestSignedDateMillis: [String: Double]
    ) {
        self.manualOverride = manualOverride
        self.transactions = transactions
        self.renewals = renewals
        self.newestSignedDateMillis = newestSignedDateMillis
    }
}
