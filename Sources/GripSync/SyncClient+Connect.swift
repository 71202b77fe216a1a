import Foundation
import Logging
import PostgresNIO
import Synchronization

extension SyncClient {
    /// Opens a connection within ``SyncTimeouts/connect`` (connect, TLS, startup and login).
    ///
    /// With `sslmode=prefer` over TCP the socket is opened here and postgres-nio is given the established channel,
    /// with a ``CleartextPasswordWatch`` first in its pipeline: a server that declines TLS and asks for the
    /// password in cleartext is cut off before the password is written.
    ///
    /// - Throws: ``SyncError/cannotConnect(target:detail:)``, ``SyncError/timedOut(target:waitingFor:limit:detail:)``,
    ///   ``SyncError/tlsUnsupported(target:)``, ``SyncError/cleartextPasswordRefused(target:)`` or
    ///   ``SyncError/tls(detail:)``.
    func connect() async throws(SyncError) -> PostgresConnection {
        let endpoint = settings.endpoint
        let limit = settings.timeouts.connect
        let logger = logger
        var configuration = try endpoint.connectionConfiguration()
        configuration.options.connectTimeout = .milliseconds(limit.milliseconds)
        let refusal = CleartextRefusal()
        let guarded = endpoint.tls == .prefer && !endpoint.isUnixSocket && configuration.tls.sslContext != nil
        let preferConfiguration = configuration
        do {
            // postgres-nio enforces the same limit itself; this deadline only backs it up, a little later.
            return try await Deadline.run(
                within: limit + .seconds(1), abandon: {}, discard: { try? await $0.close() }
            ) {
                guard guarded else {
                    return try await PostgresConnection.connect(configuration: preferConfiguration, id: 1, logger: logger)
                }
                let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                    .connectTimeout(.milliseconds(limit.milliseconds))
                    .channelInitializer { channel in
                        channel.eventLoop.makeCompletedFuture {
                            try channel.pipeline.syncOperations.addHandler(CleartextPasswordGuard(refusal: refusal))
                        }
                    }
                    .connect(host: endpoint.host, port: endpoint.port).get()
                var established = PostgresConnection.Configuration(
                    establishedChannel: channel, tls: preferConfiguration.tls, username: endpoint.user,
                    password: endpoint.password, database: endpoint.database)
                established.options = preferConfiguration.options
                if !endpoint.host.isIPAddress { established.options.tlsServerName = endpoint.host }
                return try await PostgresConnection.connect(
                    on: channel.eventLoop, configuration: established, id: 1, logger: logger
                ).get()
            }
        } catch {
            throw Self.connectFailure(error, endpoint: endpoint, limit: limit, refused: refusal.refused)
        }
    }

    private static func connectFailure(
        _ error: any Error, endpoint: SyncEndpoint, limit: Duration, refused: Bool
    ) -> SyncError {
        let target = endpoint.displayName
        if refused { return .cleartextPasswordRefused(target: target) }
        if error is Deadline.Expired { return .timedOut(target: target, waitingFor: .connect, limit: limit, detail: nil) }
        if error is CancellationError { return .interrupted }
        if let error = error as? PSQLError {
            if error.code == .sslUnsupported { return .tlsUnsupported(target: target) }
            if let underlying = error.underlying as? ChannelError, case .connectTimeout = underlying {
                return .timedOut(target: target, waitingFor: .connect, limit: limit, detail: nil)
            }
        }
        if let underlying = error as? ChannelError, case .connectTimeout = underlying {
            return .timedOut(target: target, waitingFor: .connect, limit: limit, detail: nil)
        }
        return .cannotConnect(target: target, detail: SyncError.detail(error))
    }
}

/// Set when ``CleartextPasswordGuard`` cut a connection, so the failure is reported as that and not as the closed
/// channel postgres-nio sees.
final class CleartextRefusal: Sendable {
    private let flag = Mutex(false)
    var refused: Bool { flag.withLock { $0 } }
    func refuse() { flag.withLock { $0 = true } }
}

/// The first inbound handler of a `sslmode=prefer` channel: feeds the server's bytes to a
/// ``CleartextPasswordWatch`` and closes the channel, without passing the request on, when the server asks for a
/// cleartext password after declining TLS.
final class CleartextPasswordGuard: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private var watch = CleartextPasswordWatch()
    private let refusal: CleartextRefusal

    init(refusal: CleartextRefusal) {
        self.refusal = refusal
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        switch watch.feed(buffer.readableBytesView) {
        case .pass:
            context.fireChannelRead(data)
        case .refuse:
            refusal.refuse()
            context.close(promise: nil)
        }
    }
}

extension String {
    /// Whether this is an IPv4 or IPv6 address (not valid as a TLS server name).
    var isIPAddress: Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, self, &v4) == 1 || inet_pton(AF_INET6, self, &v6) == 1
    }
}
