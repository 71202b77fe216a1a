import Foundation

extension EntitlementState {
    /// Rebuilds a state from data that was verified and applied before, as a store keeps it.
    ///
    /// The store persists facts (the manual override, the newest verified transaction and renewal info per
    /// subscription, processed notification UUIDs, replay high-water marks), not this value; this puts them back
    /// together for ``resolve(_:now:)``. Payloads are the decoded JSON texts the ``AppStoreVerifier`` returned
    /// (``Verified/payloadJSON``); within a subscription the one with the newest `signedDate` wins, as in
    /// ``applying(verified:now:)``.
    ///
    /// - Parameters:
    ///   - bypass: Early access for everyone (from the configuration).
    ///   - manualOverride: The stored manual grant, if any.
    ///   - transactionPayloads: Decoded transaction payload JSON texts, any order.
    ///   - renewalInfoPayloads: Decoded renewal info payload JSON texts, any order.
    ///   - processedNotificationUUIDs: Notifications already applied.
    ///   - newestSignedDate: The newest `signedDate` accepted so far (the "robust now" floor).
    ///   - lastSuccessfulVerification: When verified data was last applied (display only).
    /// - Throws: `DecodingError` when a stored payload is not App Store JSON (a damaged database).
    package init(
        restoringBypass bypass: Bool, manualOverride: ManualOverride?, transactionPayloads: [String],
        renewalInfoPayloads: [String], processedNotificationUUIDs: Set<String>, newestSignedDate: Date?,
        lastSuccessfulVerification: Date?
    ) throws {
        self.init(bypass: bypass, manualOverride: manualOverride)
        let decoder = appStoreJSONDecoder()
        for text in transactionPayloads {
            let payload = try decoder.decode(TransactionPayload.self, from: Data(text.utf8))
            guard let otid = payload.originalTransactionId else { continue }
            var record = subscriptions[otid] ?? SubscriptionRecord(originalTransactionId: otid)
            if let held = record.transaction?.signedDate, let new = payload.signedDate, new <= held { continue }
            record.transaction = payload
            subscriptions[otid] = record
        }
        for text in renewalInfoPayloads {
            let payload = try decoder.decode(RenewalInfoPayload.self, from: Data(text.utf8))
            guard let otid = payload.originalTransactionId else { continue }
            var record = subscriptions[otid] ?? SubscriptionRecord(originalTransactionId: otid)
            if let held = record.renewalInfo?.signedDate, let new = payload.signedDate, new <= held { continue }
            record.renewalInfo = payload
            subscriptions[otid] = record
        }
        self.processedNotificationUUIDs = processedNotificationUUIDs
        let newestOfRecords = subscriptions.values.compactMap(\.lastVerified).max()
        self.newestSignedDate = [newestSignedDate, newestOfRecords].compactMap { $0 }.max()
        self.lastSuccessfulVerification = lastSuccessfulVerification
    }
}
