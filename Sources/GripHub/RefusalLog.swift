import Foundation
import GripHTTP
import GripSystem
import Logging

/// The hub's refusals in the log: one notice per client, reason and minute, with the count of those not logged
/// (``GripSystem/LogThrottle``), so a flood of bad requests cannot flood the log.
struct RefusalLog: Sendable {
    let logger: Logger
    let throttle = LogThrottle(seconds: 60)

    /// Logs (or counts) one refused notification request.
    func refused(client: ClientKey, reason: String) {
        guard let unlogged = throttle.admit("\(client) \(reason)") else { return }
        logger.notice(
            "Notification refused",
            metadata: ["hub.peer": "\(client)", "reason": "\(reason.quotedForLog(limit: 200))", "refusals.unlogged": "\(unlogged)"])
    }
}
