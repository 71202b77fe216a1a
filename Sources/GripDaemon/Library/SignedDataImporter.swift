import Foundation
import GripConfig
import GripEntitlements
import GripProtocol

/// Verifies App Store signed data for PRO import (protocol 1.2) with the daemon's own `[app_store]` settings: the
/// daemon never trusts a client's verification.
final class SignedDataImporter: Sendable {
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
    func verify(_ jws: String, as kind: SignedDataImportKind, done: @escaping @Sendable (Result<VerifiedSignedData, RequestProblem>) -> Void) {
        guard let verifier else {
            return done(.failure(RequestProblem(code: .store, message: problem ?? "no verifier")))
        }
        let config = config
        Task {
            let now = Date()
            do throws(VerificationFailure) {
                let verified = try await verifier.verify(jws, as: SignedDataKind(argumentName: kind.rawValue), now: now)
                try config.checkAccountBinding(verified)
                done(.success(verified))
            } catch {
                done(.failure(RequestProblem(code: .rejected, message: "\(error.description) Nothing was changed.")))
            }
        }
    }
}
