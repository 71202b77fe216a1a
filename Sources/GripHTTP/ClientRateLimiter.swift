import Foundation
import NIOCore
import Synchronization

/// A ``RequestBudget`` under a lock, for a server's handlers: the one rate limiter of the web app's pairing and of
/// griptrack-hub.
package final class ClientRateLimiter: Sendable {
    private let budget: Mutex<RequestBudget>

    /// - Parameters:
    ///   - perMinute: Requests per client per minute.
    ///   - maxClients: The most clients counted apart in one minute.
    package init(perMinute: Int, maxClients: Int = 10_000) {
        budget = Mutex(RequestBudget(limit: perMinute, maxClients: maxClients))
    }

    /// Counts a request; false when its client has used up its minute.
    ///
    /// - Parameters:
    ///   - client: Who asks.
    ///   - now: The clock.
    package func admit(_ client: ClientKey, now: Date = Date()) -> Bool {
        budget.withLock { $0.admit(client, at: now.timeIntervalSince1970) }
    }

    /// Whether `client` has budget left, counting nothing (``RequestBudget/hasBudget(_:at:)``).
    ///
    /// - Parameters:
    ///   - client: Who asks.
    ///   - now: The clock.
    package func hasBudget(_ client: ClientKey, now: Date = Date()) -> Bool {
        budget.withLock { $0.hasBudget(client, at: now.timeIntervalSince1970) }
    }
}
