import Foundation
import GripEntitlements
import GripStore

/// Which Pro override a Pi holds after reading its account's verified operator statements (docs/account.md,
/// "Central grants"). Pure: the statements were verified before, the store is read and written by the caller.
///
/// The newest statement decides, and only when it is newer than the last one this device applied (kept as the
/// override's `grantedAt`, with the statement's id in `grantedBy`), so an old grant put back in the database after a
/// revocation changes nothing. A revocation ends a central grant by leaving an override that expired when it was
/// issued (the device keeps the date, for the next comparison); it leaves a grant made on this device
/// (`griptrack pro grant`) alone.
enum AccountGrantRule {
    /// `grantedBy` of an override a statement set.
    static let actorPrefix = "operator statement "

    /// The override to store, or `nil` to leave the current one.
    ///
    /// - Parameters:
    ///   - current: The device's override now.
    ///   - statements: The account's statements that verified under the operator key.
    static func decide(current: ManualGrant?, statements: [OperatorStatement]) -> ManualGrant? {
        guard let newest = statements.max(by: { ($0.issued, $0.id.uuidString) < ($1.issued, $1.id.uuidString) }) else {
            return nil
        }
        let central = current.map { $0.grantedBy.hasPrefix(actorPrefix) } ?? false
        let actor = actorPrefix + newest.id.uuidString.lowercased()
        // Applied already, or older than what was: the store keeps dates to the millisecond, hence the margin.
        if central, let current,
            current.grantedBy == actor || newest.issued.timeIntervalSince(current.grantedAt) < 0.001
        {
            return nil
        }
        switch newest.action {
        case .grant:
            return ManualGrant(
                note: newest.note.isEmpty ? "account grant" : "account grant: \(newest.note)",
                expiresAt: newest.expires, grantedAt: newest.issued, grantedBy: actor)
        case .revoke:
            guard central else { return nil }
            return ManualGrant(
                note: newest.note.isEmpty ? "account grant revoked" : "account grant revoked: \(newest.note)",
                expiresAt: newest.issued, grantedAt: newest.issued, grantedBy: actor)
        }
    }
}
