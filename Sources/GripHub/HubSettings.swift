import Foundation
import GripEntitlements
import GripHTTP
import GripSync

/// What griptrack-hub needs to run: where it listens, how it checks App Store data, where it stores it, and its
/// limits (docs/account.md, "The hub").
package struct HubSettings: Sendable {
    /// The largest request body accepted: a V2 notification (three JWS strings, each with its certificate chain)
    /// is well under it; anything larger is refused before it is parsed.
    package static let bodyLimit = 64 * 1024

    /// The notification door's bounds: the App Store opens a few connections at a time, and a reverse proxy in front
    /// may pool some; 256 leaves room for both and for /healthz pollers, within the unit's `LimitNOFILE`. An idle or
    /// stalled connection goes after 15 s (the App Store sends a whole notification at once).
    package static let doorLimits = DoorLimits(maxConnections: 256, idleTimeout: .seconds(15), bodyLimit: bodyLimit)

    /// The database deadlines of a notification: the App Store waits for the hub's answer and retries a 5xx for
    /// days, so a database that does not answer within seconds (a lock held, a server gone silent) is a 503 now,
    /// not a request that outlives the App Store's patience and SIGTERM.
    package static let databaseTimeouts = SyncTimeouts(
        connect: .seconds(5), migration: .seconds(30), batch: .seconds(10), read: .seconds(10), lock: .seconds(5))

    /// How long one database check answers every /healthz after it.
    package static let healthCacheSeconds: Double = 5

    /// The address to listen on (behind the TLS reverse proxy: loopback by default).
    package var host: String
    /// The port; 0 lets the system pick one (tests).
    package var port: Int
    /// The App Store checks, the same as a Pi's `[app_store]`.
    package var verifier: AppStoreVerifier
    /// The PostgreSQL server, as an operator role.
    package var database: SyncEndpoint
    /// Deadlines for the database.
    package var timeouts: SyncTimeouts = HubSettings.databaseTimeouts
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
