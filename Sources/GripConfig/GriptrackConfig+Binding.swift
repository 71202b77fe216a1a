import Foundation
import GripEntitlements

extension GriptrackConfig {
    /// Checks that purchases carry this installation's `appAccountToken` (`[app_store] account_token`), so a
    /// transaction bought by someone else's account cannot be imported here (the rule:
    /// ``GripEntitlements/VerifiedSignedData/accountBindingFailure(expected:source:)``); with no token configured,
    /// nothing is checked.
    ///
    /// - Parameter verified: Data the verifier accepted.
    /// - Throws: A ``VerificationFailure`` of category `appIdentifier` naming both tokens.
    package func checkAccountBinding(_ verified: VerifiedSignedData) throws(VerificationFailure) {
        guard let expected = appStore.accountToken else { return }
        if let failure = verified.accountBindingFailure(expected: expected, source: "app_store.account_token") {
            throw failure
        }
    }
}
