import Foundation
import GripEntitlements
import GripSync

/// What griptrack-hub needs to run: where it listens, how it checks App Store data, where it stores it, and its
/// limits (docs/account.md, "The hub").
package struct HubSettings: Sendable {
    /// The largest request body accepted: a V2 notification (three JWS strings, each with its certificate chain)
    /// is well under it; anything larger is refused before it is parsed.
    package static let bodyLimit = 64 * 1024

    /// The address to listen on (behind the TLS reverse proxy: loopback by default).
    package var host: String
    /// The port; 0 lets the system pick one (tests).
    package var port: Int
    /// The App Store checks, the same as a Pi's `[app_store]`.
    package var verifier: AppStoreVerifier
    /// The PostgreSQL server, as an operator role.
    package var database: SyncEndpoint
    /// Deadlines for the database.
    package var timeouts: SyncTimeouts = .standard
    /// Notification requests per client address in any minute.
    package var requestsPerMinute: Int

    /// Creates settings.
    /// - Parameters: See the properties.
    package init(host: String, port: Int, verifier: AppStoreVerifier, database: SyncEndpoint, requestsPerMinute: Int = 60) {
        self.host = host
        self.port = port
        self.verifier = verifier
        self.database = database
        self.requestsPerMinute = requestsPerMinute
    }
}
