/// Where an App Store Pro came from, for `pro status` and griptrackd's PLAN reply (docs/account.md, "Pro follows the account"): the newest
/// App Store grant in the audit log names its actor, and a sync's pull writes `account NAME` there.
public enum ProProvenance {
    /// A line such as "App Store subscription, verified, received through the account crag-gym", or `nil` when
    /// Pro is not an App Store subscription or did not come through the account.
    ///
    /// - Parameters:
    ///   - source: The resolver's source (`subscription`, `billingGracePeriod`, `offlineGrace`, …).
    ///   - audit: The audit log, newest first.
    public static func line(source: String, audit: [ProAuditEntry]) -> String? {
        guard ["subscription", "billingGracePeriod", "offlineGrace"].contains(source),
            let granted = audit.first(where: { $0.source == "appStore" && $0.action == .grant }),
            granted.actor.hasPrefix("account ")
        else { return nil }
        return "App Store subscription, verified, received through the \(granted.actor)"
    }
}
