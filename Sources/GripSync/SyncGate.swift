import Foundation
import GripEntitlements
import GripStore

/// Sync is Pro. The decision is the one resolver's, read the way every Pro command reads it
/// (``RecordingStore/accessStatus(_:now:)``); the refusal carries its reason verbatim.
package enum SyncGate {
    /// Throws unless the resolver grants Pro now.
    ///
    /// - Parameters:
    ///   - store: The database whose entitlement state decides.
    ///   - context: Bypass flag and free plan.
    ///   - now: The clock.
    /// - Throws: ``SyncError/proRequired(reason:)`` or ``SyncError/store(_:)``.
    package static func requirePro(store: RecordingStore, context: AccessContext, now: Date) throws(SyncError) {
        if let refusal = try refusal(store: store, context: context, now: now) { throw refusal }
    }

    /// The refusal a push on the free plan ends with, or `nil` when the resolver grants Pro now.
    ///
    /// - Throws: ``SyncError/store(_:)``.
    static func refusal(store: RecordingStore, context: AccessContext, now: Date) throws(SyncError) -> SyncError? {
        let status: AccessStatus
        do {
            status = try store.accessStatus(context, now: now)
        } catch {
            throw .store(error)
        }
        return status.access.isPro ? nil : .proRequired(reason: status.access.reason)
    }
}
