import Foundation
import GripSync
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization

/// griptrack-hub's HTTP server (Hummingbird 2): App Store Server Notifications V2 in, verified and stored in
/// PostgreSQL; and `/healthz` (docs/account.md, "The hub").
///
/// `POST /appstore/v2/notifications` answers 200 only after the notification is committed (or was stored before),
/// so the App Store retries anything this hub did not keep. Every refusal is one log line at notice.
package final class HubServer: Service, Sendable {
    let settings: HubSettings
    let logger: Logger
    let intake: NotificationIntake
    let archive: NotificationArchive
    let limiter: HubRateLimiter
    private let bound = Mutex<Int?>(nil)

    /// Creates the server (it listens once ``run()`` is called).
    ///
    /// - Parameters:
    ///   - settings: Listen address, verifier, database and limits.
    ///   - logger: One line per notification stored or refused.
    package init(settings: HubSettings, logger: Logger) {
        self.settings = settings
        self.logger = logger
        intake = NotificationIntake(verifier: settings.verifier)
        archive = NotificationArchive(endpoint: settings.database, timeouts: settings.timeouts, logger: logger)
        limiter = HubRateLimiter(limit: settings.requestsPerMinute)
    }

    /// The port it listens on, once it does (`port = 0` picks one).
    package var port: Int? { bound.withLock { $0 } }

    /// Waits until the server listens; `nil` when the task is cancelled first.
    package func waitUntilListening() async -> Int? {
        while true {
            if let port { return port }
            guard (try? await Task.sleep(for: .milliseconds(5))) != nil else { return nil }
        }
    }

    /// Serves until cancelled or shut down gracefully.
    package func run() async throws {
        // Migrate and check the schema once here: a notification's own connection then only inserts. A database
        // that is not up yet is logged and retried by /healthz; the App Store retries what fails meanwhile.
        do {
            try await archive.check()
        } catch {
            logger.notice("Database not ready at start", metadata: ["reason": "\(error)"])
        }
        let router = Router(context: HubContext.self)
        router.post("/appstore/v2/notifications") { request, context in
            await self.notification(request, context)
        }
        router.get("/healthz") { request, context in
            // Each check opens a database connection: limited like the notifications, so it is no amplifier.
            guard self.limiter.admit(peer: context.remoteAddress, forwardedFor: request.headers[.xForwardedFor]) else {
                return Self.text(429, "too many requests; try again in a minute")
            }
            return await self.health()
        }
        let application = Application(
            router: router,
            configuration: ApplicationConfiguration(
                address: .hostname(settings.host, port: settings.port), serverName: "griptrack-hub"),
            onServerRunning: { [self] channel in
                let port = channel.localAddress?.port ?? settings.port
                bound.withLock { $0 = port }
                logger.info("Hub listening", metadata: ["hub.listen": "\(settings.host):\(port)"])
            },
            logger: logger)
        do {
            try await application.runService(gracefulShutdownSignals: [])
        } catch is CancellationError {}
    }

    func notification(_ request: Request, _ context: HubContext) async -> Response {
        let peer = HubRateLimiter.client(peer: context.remoteAddress, forwardedFor: request.headers[.xForwardedFor])
        guard limiter.admit(peer: context.remoteAddress, forwardedFor: request.headers[.xForwardedFor]) else {
            logger.notice("Notification refused", metadata: ["hub.peer": "\(peer)", "reason": "rate limit"])
            return Self.text(429, "too many requests; try again in a minute")
        }
        var request = request
        let body: ByteBuffer
        do {
            body = try await request.collectBody(upTo: HubSettings.bodyLimit)
        } catch {
            logger.notice("Notification refused", metadata: ["hub.peer": "\(peer)", "reason": "body over the limit"])
            return Self.text(413, "the body is larger than \(HubSettings.bodyLimit) bytes")
        }
        switch await intake.decide(body: Array(body.readableBytesView), now: Date()) {
        case .refuse(let status, let reason):
            logger.notice("Notification refused", metadata: ["hub.peer": "\(peer)", "reason": "\(reason)"])
            return Self.text(status, reason)
        case .store(let notification):
            do {
                let outcome = try await archive.store(notification)
                switch outcome {
                case .stored(let account, let referral):
                    logger.info(
                        "Notification stored",
                        metadata: [
                            "notification.uuid": "\(notification.notificationUUID)",
                            "notification.type": "\(notification.type)", "account": "\(account ?? "(none)")",
                        ])
                    switch referral {
                    case .rewarded(let referrer, _)?:
                        logger.info("Referral completed", metadata: ["account": "\(account ?? "")", "referrer": "\(referrer)"])
                    case .poolEmpty(let referrer)?:
                        logger.notice(
                            "Referral completed, no offer code left to reward it",
                            metadata: ["account": "\(account ?? "")", "referrer": "\(referrer)"])
                    case nil:
                        break
                    }
                case .duplicate:
                    logger.info("Notification seen before", metadata: ["notification.uuid": "\(notification.notificationUUID)"])
                }
                return Self.text(200, "stored")
            } catch {
                // Not stored: a 5xx makes the App Store send it again later.
                logger.notice(
                    "Notification not stored",
                    metadata: ["notification.uuid": "\(notification.notificationUUID)", "reason": "\(error)"])
                return Self.text(503, "the database is unavailable; the App Store will retry")
            }
        }
    }

    func health() async -> Response {
        do {
            try await archive.check()
            return Self.text(200, "ok")
        } catch {
            // The detail (host, role, server text) is for the operator's log, not for whoever asks.
            logger.notice("Health check failed", metadata: ["reason": "\(error)"])
            return Self.text(503, "the database is unavailable")
        }
    }

    static func text(_ status: Int, _ message: String) -> Response {
        Response(
            status: HTTPResponse.Status(code: status),
            headers: [.contentType: "text/plain; charset=utf-8", .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: message + "\n")))
    }
}

extension HTTPField.Name {
    /// Set by the TLS reverse proxy in front of the hub.
    static let xForwardedFor = HTTPField.Name("X-Forwarded-For")!
}
