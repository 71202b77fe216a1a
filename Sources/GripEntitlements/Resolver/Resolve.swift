import Foundation

/// Decides Pro or Free: the only place access is decided. Daemon and CLI both call it.
///
/// In order:
/// 1. ``EntitlementState/bypass`` → Pro, "Pro: early access for everyone";
/// 2. a ``ManualOverride`` with no expiry or an expiry after `now` → Pro, "Pro: complimentary — note, until date";
/// 3. any verified subscription of a Pro product that is active (`now < expiresDate`) or in billing grace
///    (`now < gracePeriodExpiresDate`) → Pro; or, within ``EntitlementPolicy/offlineGrace`` of its last verified
///    `signedDate`, one whose newest data showed it active or in grace (unless renewal was turned off);
/// 4. otherwise Free, with the reason (expired, refunded, payment failed, override ended, or nothing).
///
/// `now` is first clamped to ``EntitlementState/newestSignedDate``. Every boundary is exclusive: access whose end
/// equals `now` is over.
///
/// - Parameters:
///   - state: What is known.
///   - now: The system clock.
/// - Returns: The access and its reason.
public func resolve(_ state: EntitlementState, now: Date) -> Access {
    let now = state.clampedNow(now)
    if state.bypass {
        return Access(tier: .pro, source: .bypass, reason: "Pro: early access for everyone")
    }
    if let grant = state.manualOverride, grant.isActive(at: now) {
        var reason = "Pro: complimentary"
        if let note = grant.note, !note.isEmpty { reason += " — \(note)" }
        if let expires = grant.expires { reason += ", until \(utcDay(expires))" }
        return Access(tier: .pro, source: .manualOverride, reason: reason, expires: grant.expires)
    }

    let evaluations = state.subscriptions.values
        .sorted { $0.originalTransactionId < $1.originalTransactionId }
        .compactMap { SubscriptionEvaluation(record: $0, state: state, now: now) }
    let granting = evaluations.filter(\.access.isPro).max { lhs, rhs in
        (lhs.rank, lhs.access.expires ?? .distantFuture) < (rhs.rank, rhs.access.expires ?? .distantFuture)
    }
    if let granting { return granting.access }

    let lapsed = evaluations.max { ($0.lastVerified ?? .distantPast) < ($1.lastVerified ?? .distantPast) }
    if let lapsed { return lapsed.access }
    if let grant = state.manualOverride, let expires = grant.expires {
        return Access(tier: .free, source: .none, reason: "Free: complimentary access ended \(utcDay(expires))")
    }
    return Access(tier: .free, source: .none, reason: "Free: no Pro subscription")
}

/// One subscription judged at `now`.
struct SubscriptionEvaluation {
    let access: Access
    let lastVerified: Date?
    /// Preference among granting subscriptions: active > billing grace > offline grace.
    let rank: Int

    /// Returns `nil` for a subscription that is not a Pro product (or not a subscription, or upgraded away):
    /// it neither grants nor explains anything.
    init?(record: SubscriptionRecord, state: EntitlementState, now: Date) {
        guard let transaction = record.transaction, let status = record.status(at: now),
            transaction.isSubscription, transaction.isUpgraded != true,
            let plan = state.planName(transaction.productId)
        else { return nil }
        let otid = record.originalTransactionId
        let name = "App Store \(plan)" + (transaction.isIntroductoryOffer && status == .active ? " (introductory offer)" : "")
        self.lastVerified = record.lastVerified
        let offlineEnd = Self.offlineGraceEnd(record: record, now: now)

        switch status {
        case .active:
            let expires = transaction.expiresDate ?? now
            let verb: String
            switch record.renewalInfo?.autoRenewStatus {
            case 1?: verb = "renews"
            case 0?: verb = "ends"
            default: verb = "until"
            }
            self.rank = 3
            self.access = Access(
                tier: .pro, source: .subscription, reason: "Pro: \(name), \(verb) \(utcDay(expires))",
                expires: max(expires, offlineEnd ?? expires), originalTransactionId: otid)
        case .billingGracePeriod:
            let grace = record.renewalInfo?.gracePeriodExpiresDate ?? now
            self.rank = 2
            self.access = Access(
                tier: .pro, source: .billingGracePeriod,
                reason: "Pro: \(name), payment failed, billing grace until \(utcDay(grace))",
                expires: max(grace, offlineEnd ?? grace), originalTransactionId: otid)
        case .expired, .billingRetry, .revoked:
            if let offlineEnd, let verified = record.lastVerified {
                self.rank = 1
                self.access = Access(
                    tier: .pro, source: .offlineGrace,
                    reason: "Pro: \(name), offline grace until \(utcDay(offlineEnd)) (last verified \(utcDay(verified)))",
                    expires: offlineEnd, originalTransactionId: otid)
                return
            }
            self.rank = 0
            let reason: String
            switch status {
            case .revoked:
                let when = transaction.revocationDate.map { " on \(utcDay($0))" } ?? ""
                let what = transaction.revocationType == "FAMILY_REVOKE" ? "family sharing ended" : "refunded or revoked"
                reason = "Free: \(name) \(what)\(when)"
            case .billingRetry:
                let when = transaction.expiresDate.map { " on \(utcDay($0))" } ?? ""
                reason = "Free: \(name) payment failed\(when); the App Store is retrying"
            default:
                reason = "Free: \(name) expired" + (transaction.expiresDate.map { " \(utcDay($0))" } ?? "")
            }
            self.access = Access(tier: .free, source: .none, reason: reason, originalTransactionId: otid)
        }
    }

    /// The end of the offline grace, if it applies at `now`: the newest data (at its `signedDate`) showed the
    /// subscription active or in billing grace, renewal was not turned off, nothing revoked it, and `now` is
    /// within ``EntitlementPolicy/offlineGrace`` of that `signedDate`.
    static func offlineGraceEnd(record: SubscriptionRecord, now: Date) -> Date? {
        guard let verified = record.lastVerified,
            record.status(at: verified)?.grantsAccess == true,
            record.renewalInfo?.willNotRenew != true
        else { return nil }
        let end = verified.addingTimeInterval(EntitlementPolicy.offlineGrace)
        return now < end ? end : nil
    }
}
