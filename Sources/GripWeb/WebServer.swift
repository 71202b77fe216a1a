import Foundation
import GripDaemon
import GripHTTP
import GripProtocol
import GripStore
import GripSystem
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import ServiceLifecycle
import Synchronization

/// griptrackd's web app (docs/web.md): the live page, the history, and an HTTP API, served by Hummingbird.
///
/// It is one more client of the daemon: every API call becomes a request line on the daemon's Unix socket and the
/// daemon's JSON comes back as it was sent; the live stream is one WATCH connection per pace, shared by every browser
/// watching at that pace and forwarded to each as Server-Sent Events. Who may do what is decided here, before anything is forwarded (``WebAuthenticator``).
package final class WebServer: Service, Sendable {
    let settings: WebSettings
    let access: WebAccess
    let logger: Logger
    let authenticator: WebAuthenticator
    let limiter = ClientRateLimiter(perMinute: WebSettings.pairingRefusalsPerMinute)
    /// Refused pairing codes, logged once per address and minute with a count.
    let pairingRefusals = LogThrottle(seconds: 60)
    let control: ControlLink
    /// The daemon's counters in Prometheus' text format, for `/metrics` (`Daemon.metricsExposition`); `nil`: no route.
    let metrics: (@Sendable () -> String)?
    /// The live stream's WATCH connections, one per pace, each shared by every event stream of its pace.
    let watches: [WatchPace: SharedWatch]
    private let bound = Mutex<Int?>(nil)

    /// Creates the server; nothing listens until `run()`.
    /// - Parameters:
    ///   - settings: where to listen, anonymous access, the daemon's socket.
    ///   - access: the daemon's credentials and pairing codes (`Daemon.webAccess`).
    ///   - logger: the web app's logger.
    ///   - metrics: the Prometheus exposition to serve at `/metrics`, if any.
    package init(settings: WebSettings, access: WebAccess, logger: Logger, metrics: (@Sendable () -> String)? = nil) {
        self.settings = settings
        self.metrics = metrics
        self.access = access
        self.logger = logger
        authenticator = WebAuthenticator(access: access, anonymous: settings.anonymous == .watch ? .watch : nil)
        control = ControlLink(socketPath: settings.socketPath)
        watches = Dictionary(uniqueKeysWithValues: WatchPace.allCases.map { pace in
            (pace, SharedWatch(
                pace: pace, socketPath: settings.socketPath, budget: settings.eventBacklogLines,
                heartbeat: settings.eventHeartbeat, logger: logger))
        })
    }

    /// The port the server listens on, once it does (the chosen one for port 0).
    package var port: Int? { bound.withLock { $0 } }

    /// Returns the bound port once the server listens (polls every 5 ms), or nil when the task is cancelled.
    package func waitUntilListening() async -> Int? {
        while true {
            if let port { return port }
            guard (try? await Task.sleep(for: .milliseconds(5))) != nil else { return nil }
        }
    }

    /// HTTP/1.1, over TLS when the settings name a certificate and key.
    /// - Throws: ``WebTLSError`` naming the file that could not be read as PEM.
    static func serverBuilder(tls: WebSettings.TLSFiles?, limits: DoorLimits) throws -> HTTPServerBuilder {
        let http1 = HTTPServerBuilder.http1(configuration: limits.http1)
        guard let tls else { return http1 }
        let chain: [NIOSSLCertificate]
        let key: NIOSSLPrivateKey
        do {
            chain = try NIOSSLCertificate.fromPEMFile(tls.certificatePath)
        } catch {
            throw WebTLSError("cannot read the certificate \(tls.certificatePath) as PEM: \(error)")
        }
        do {
            key = try NIOSSLPrivateKey(file: tls.keyPath, format: .pem)
        } catch {
            throw WebTLSError("cannot read the private key \(tls.keyPath) as PEM: \(error)")
        }
        let configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
        return try .tls(http1, tlsConfiguration: configuration)
    }

    /// Serves until cancelled or shut down gracefully.
    /// - Throws: when the address cannot be bound.
    package func run() async throws {
        let router = Router(context: WebContext.self, options: DoorLimits.routerOptions)
        router.add(
            middleware: DoorMiddleware(limits: settings.doorLimits, streamPaths: ["/api/events"]) { status, message in
                WebError.jsonResponse(status: status, object: ["error": message])
            })
        addRoutes(to: router)
        let listen = settings.listen
        // One event loop serves every browser: a board's screen has a handful of them, and each line the shared WATCH
        // reads on one loop and writes to a browser on another cost that loop a wake-up.
        let browsers = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let application = Application(
            router: router,
            server: try Self.serverBuilder(tls: settings.tls, limits: settings.doorLimits),
            configuration: settings.doorLimits.applicationConfiguration(
                address: .hostname(listen.host, port: listen.port), serverName: "griptrackd", logger: logger),
            onServerRunning: { [self] channel in
                let port = channel.localAddress?.port ?? listen.port
                bound.withLock { $0 = port }
                var actual = listen
                actual.port = port
                access.setListenAddress(actual.description, scheme: settings.tls == nil ? "http" : "https")
                logger.info("Web app listening", metadata: ["web.listen": "\(actual)"])
            },
            eventLoopGroupProvider: .shared(browsers),
            logger: logger)
        // Cancelled (the daemon stopped), the web app shuts down gracefully: event streams end as when the daemon
        // closes, Hummingbird stops accepting and lets the requests under way finish. Cancelling the server itself
        // closed its channel under it and logged two errors on every clean stop; the group cancels only if the
        // graceful stop overruns (a request stuck past the doors' idle timeout).
        var group = ServiceGroupConfiguration(services: [application], logger: logger)
        group.maximumGracefulShutdownDuration = .seconds(5)
        let services = ServiceGroup(configuration: group)
        async let controlled: Void = control.run()
        defer {
            access.setListenAddress(nil)
            control.finish()
            for watch in watches.values { watch.shutDown() }
        }
        // Its own task, not a child: a child would be cancelled with this one before any graceful stop began.
        let serving = Task { try await services.run() }
        do {
            try await withTaskCancellationHandler {
                try await serving.value
            } onCancel: { [watches] in
                for watch in watches.values { watch.shutDown() }
                Task { await services.triggerGracefulShutdown() }
            }
        } catch is CancellationError {}
        control.finish()
        await controlled
        try? await browsers.shutdownGracefully()
    }
}
