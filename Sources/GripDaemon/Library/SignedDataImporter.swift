import Foundation
import GripConfig
import GripEntitlements

/// Verifies App Store signed data for PRO import (protocol 1.2) with the daemon's own `[app_store]` settings: the
/// daemon never trusts a client's verification.
final class SignedDataImporter: Sendable {
    /// What the data is said to be.
    enum Kind: String, Sendable {
        case auto, transaction, renewalInfo = "renewal-info", notification
    }

    private let config: GriptrackConfig
    private let verifier: AppStoreVerifier?
    private let problem: String?

    /// - Parameter config: the configuration file's settings (`[app_store]`).
    init(config: GriptrackConfig) {
        self.config = config
        do {
            verifier = try AppStoreVerifier(configuration: try config.verifierConfiguration())
            problem = nil
        } catch {
            verifier = nil
            problem = "the daemon's [app_store] configuration is invalid: \(error)"
        }
    }

    /// Verifies `jws` off the socket thread and hands the outcome to `done` (on a task of the cooperative pool).
    func verify(_ jws: String, as kind: Kind, done: @escaping @Sendable (Result<VerifiedSignedData, StoreProblem>) -> Void) {
        guard let verifier else {
            return done(.failure(StoreProblem(code: .store, message: problem ?? "no verifier")))
        }
        let config = config
        Task {
            let now = Date()
            do throws(VerificationFailure) {
                let verified: VerifiedSignedData
                switch kind {
                case .auto: verified = try await verifier.verify(jws, now: now)
                case .transaction: verified = .transaction(try await verifier.verifyTransaction(jws, now: now))
                case .renewalInfo: verified = .renewalInfo(try await verifier.verifyRenewalInfo(jws, now: now))
                case .notification: verified = .notification(try await verifier.verifyNotification(jws, now: now))
                }
                try config.checkAccountBinding(verified)
                done(.success(verified))
            } catch {
                done(.failure(StoreProblem(code: .rejected, message: "\(error.description) Nothing was changed.")))
            }
        }
    }
}
