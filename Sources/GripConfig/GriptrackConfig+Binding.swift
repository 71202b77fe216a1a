import Foundation
import GripEntitlements

extension GriptrackConfig {
    /// Checks that purchases carry this installation's `appAccountToken` (`[app_store] account_token`), so a
    /// transaction bought by someone else's account cannot be imported here. Renewal info binds only through its
    /// `originalTransactionId` and is not checked; with no token configured, nothing is.
    ///
    /// - Parameter verified: Data the verifier accepted.
    /// - Throws: A ``VerificationFailure`` of category `appIdentifier` naming both tokens.
    package func checkAccountBinding(_ verified: VerifiedSignedData) throws(VerificationFailure) {
        guard let expected = appStore.accountToken else { return }
        let transaction: (payload: TransactionPayload, json: String)?
        switch verified {
        case .transaction(let value): transaction = (value.payload, value.payloadJSON)
        case .notification(let value): transaction = value.transaction.map { ($0.payload, value.notification.payloadJSON) }
        case .renewalInfo: transaction = nil
        }
        guard let transaction else { return }
        let token = transaction.payload.appAccountToken.flatMap(UUID.init(uuidString:))
        guard token == expected else {
            throw VerificationFailure(
                .appIdentifier,
                "appAccountToken \(transaction.payload.appAccountToken.map { "\"\($0)\"" } ?? "missing"), expected "
                    + "\"\(expected.uuidString.lowercased())\" (app_store.account_token)",
                payloadJSON: transaction.json)
        }
    }
}
