import Foundation
import GripEntitlements
import GripSync

/// Turns a request body into an ``IntakeDecision``: the body's shape, then the existing verifier (Apple's root, the
/// chain, bundle id, app Apple ID and environment, the nested transaction and renewal info), then the fields the
/// archive keys on. No I/O besides the verifier's own work; the server does the storing.
struct NotificationIntake: Sendable {
    let verifier: AppStoreVerifier

    /// The App Store's request body: `{"signedPayload": "<JWS>"}`.
    private struct Body: Decodable {
        var signedPayload: String
    }

    func decide(body: [UInt8], now: Date) async -> IntakeDecision {
        guard let parsed = try? JSONDecoder().decode(Body.self, from: Data(body)) else {
            return .refuse(status: 400, reason: "the body is not {\"signedPayload\": \"…\"}")
        }
        let verified: VerifiedNotification
        do {
            verified = try await verifier.verifyNotification(parsed.signedPayload, now: now)
        } catch {
            return .refuse(status: error.isRetryable ? 503 : Self.status(error.category), reason: error.description)
        }
        let payload = verified.notification.payload
        guard let uuid = payload.notificationUUID, !uuid.isEmpty, uuid.utf8.count <= 64 else {
            return .refuse(status: 400, reason: "the notification has no usable notificationUUID")
        }
        let transaction = verified.transaction?.payload
        // PostgreSQL's text holds no NUL: such a value would fail the insert as "database unavailable", a 503 the
        // App Store retries for days. A signed payload with one is malformed, permanently.
        let stored = [uuid, payload.notificationType, payload.subtype, transaction?.originalTransactionId]
        if stored.contains(where: { $0?.unicodeScalars.contains("\u{0}") == true }) {
            return .refuse(status: 400, reason: "the notification holds a NUL character in a field the hub stores")
        }
        return .store(
            ArchivedNotification(
                notificationUUID: uuid, type: payload.notificationType ?? "UNKNOWN", subtype: payload.subtype,
                // A token that is not a UUID links to no account (the app sets a UUID; anything else is not ours).
                appAccountToken: transaction?.appAccountToken.flatMap(UUID.init(uuidString:)),
                originalTransactionId: transaction?.originalTransactionId,
                signedAt: verified.notification.signedDate, expiresAt: transaction?.expiresDate,
                offerType: transaction?.offerType,
                signedPayload: parsed.signedPayload, signedTransaction: payload.data?.signedTransactionInfo,
                signedRenewalInfo: payload.data?.signedRenewalInfo))
    }

    /// A malformed request is 400; data that is not ours or not Apple's (chain, signature, bundle, environment)
    /// is 403.
    static func status(_ category: VerificationFailure.Category) -> Int {
        switch category {
        case .format: 400
        case .chain, .signature, .appIdentifier, .environment: 403
        }
    }
}
