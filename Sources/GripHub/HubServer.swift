import Foundation
import GripHTTP
import GripSync
import GripSystem
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
/// so the App Store retries anything this hub did not keep. Every refusal is logged at notice, at most once per
/// client, reason and minute with a count of the ones not logged (``RefusalLog``); every string a client sent is
/// quoted before it reaches a log line. The door's bounds are ``HubSettings/doorLimits``.
package final class HubServer: Service, Sendable {
    let settings: HubSettings
    let logger: Logger
    let intake: NotificationIntake
    let archive: NotificationArchive
    let limiter: ClientRateLimiter
    let refusals: RefusalLog
    private let bound = Mutex<Int?>(nil)
    /// The last database check and when it ran (/healthz answers from it for ``HubSettings/healthCacheSeconds``),
    /// and whether a check is running (a poller that comes meanwhile gets the last answer, not a connection).
    private let healthState = Mutex<(checkedAt: Double, healthy: Bool, checking: Bool)>((-.infinity, false, false))

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
        limiter = ClientRateLimiter(perMinute: settings.requestsPerMinute)
        refusals = RefusalLog(logger: logger)
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
            logger.notice("Database not ready at start", metadata: ["reason": "\(error.description(for: .hub))"])
        }
        let router = Router(context: HubContext.self, options: DoorLimits.routerOptions)
        router.add(middleware: DoorMiddleware(limits: HubSettings.doorLimits))
        router.post("/appstore/v2/notifications") { request, context in
            await self.notification(request, context)
        }
        router.get("/healthz") { request, context in
            // Answered from the last check while it is fresh: pollers cost the database one connection per
            // few seconds, whoever they are; and limited like the notifications.
            let client = ClientKey(peer: context.remoteAddress, forwardedFor: request.headers[.xForwardedFor])
            guard self.limiter.admit(client) else {
                return Self.tooManyRequests
            }
            return await self.health()
        }
        let limits = HubSettings.doorLimits
        let application = Application(
            router: router,
            server: .http1(configuration: limits.http1),
            configuration: limits.applicationConfiguration(
                address: .hostname(settings.host, port: settings.port), serverName: "griptrack-hub", logger: logger),
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

    static let tooManyRequests: Response = {
        var response = text(429, "too many requests; try again in a minute")
        response.headers[.retryAfter] = "60"
        return response
    }()

    func notification(_ request: Request, _ context: HubContext) async -> Response {
        let client = ClientKey(peer: context.remoteAddress, forwardedFor: request.headers[.xForwardedFor])
        guard limiter.admit(client) else {
            refusals.refused(client: client, reason: "rate limit")
            return Self.tooManyRequests
        }
        var request = request
        let body: ByteBuffer
        do {
            body = try await request.collectBody(upTo: HubSettings.bodyLimit)
        } catch {
            refusals.refused(client: client, reason: "body over the limit")
            return Self.text(413, "the body is larger than \(HubSettings.bodyLimit) bytes")
        }
        switch await intake.decide(body: Array(body.readableBytesView), now: Date()) {
        case .refuse(let status, let reason):
            refusals.refused(client: client, reason: reason)
            return Self.text(status, reason)
        case .store(let notification):
            let uuid = notification.notificationUUID.quotedForLog()
            do {
                let outcome = try await archive.store(notification)
                switch outcome {
                case .stored(let account, let referral):
                    logger.info(
                        "Notification stored",
                        metadata: [
                            "notification.uuid": "\(uuid)",
                            "notification.type": "\(notification.type.quotedForLog())", "account": "\(account ?? "(none)")",
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
                    logger.info("Notification seen before", metadata: ["notification.uuid": "\(uuid)"])
                }
                return Self.text(200, "stored")
            } catch {
                // Not stored: a 5xx makes the App Store send it again later.
                logger.notice(
                    "Notification not stored", metadata: ["notification.uuid": "\(uuid)", "reason": "\(error.description(for: .hub))"])
                var response = Self.text(503, "the database is unavailable; the App Store will retry")
                response.headers[.retryAfter] = "60"
                return response
            }
        }
    }

    /// The database's health as the last check found it, checked again (one at a time) once that is older than
    /// ``HubSettings/healthCacheSeconds``.
    func health(now: Double = LogThrottle.monotonicSeconds()) async -> Response {
        enum Next { case answer(Bool), check }
        let next = healthState.withLock { state -> Next in
            if state.checking || now - state.checkedAt < HubSettings.healthCacheSeconds { return .answer(state.healthy) }
            state.checking = true
            return .check
        }
        let healthy: Bool
        switch next {
        case .answer(let cached):
            healthy = cached
        case .check:
            do {
                try await archive.check()
                healthy = true
            } catch {
                // The detail (host, role, server text) is for the operator's log, not for whoever asks.
                logger.notice("Health check failed", metadata: ["reason": "\(error.description(for: .hub))"])
                healthy = false
            }
            healthState.withLock { $0 = (LogThrottle.monotonicSeconds(), healthy, false) }
        }
        return healthy ? Self.text(200, "ok") : Self.text(503, "the database is unavailable")
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
