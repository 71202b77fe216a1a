import Foundation
import Glibc
import GripAnalysis
import GripStream
import GripWire
import Logging
import ServiceLifecycle

/// `griptrackd`: a source feeding the ring, the consumer loop, the socket server and the systemd notifier, run as
/// one `ServiceGroup`.
///
/// Services start together and shut down in reverse order: the notifier says STOPPING=1, the source ends the
/// stream, the consumer drains it (closing an open effort and recording), and the socket server passes those last
/// events on before it closes and removes the socket file.
public final class Daemon: Sendable {
    /// The path the daemon listens on.
    public let socketPath: String
    private let group: ServiceGroup
    private let server: SocketServer

    /// Validates the replay (if any), binds the socket and assembles the services; nothing runs yet.
    /// - Parameters:
    ///   - configuration: the validated configuration.
    ///   - environment: the process environment (`NOTIFY_SOCKET`, `WATCHDOG_USEC`, `WATCHDOG_PID`).
    ///   - logger: the root logger; every service logs through it.
    /// - Throws: `DaemonError` when the replay capture is unusable or the socket cannot be bound.
    public init(
        configuration: DaemonConfiguration, environment: [String: String] = ProcessInfo.processInfo.environment,
        logger: Logger
    ) throws(DaemonError) {
        socketPath = configuration.socketPath
        let ring = NotificationRing(capacityPowerOfTwo: 4096)
        let fanOut = try FanOut()
        let gate = StartGate(open: !configuration.replayWaitsForWatcher)
        let radio = configuration.replayPath == nil ? configuration.radio : nil
        let status = DaemonStatus(source: configuration.replayPath != nil ? "replay" : radio != nil ? "bluez" : "none")
        var settings = SegmenterSettings()
        settings.sessionGapMicros = configuration.sessionGap.micros
        let activity = EffortActivity()
        var device: DeviceRequests?

        let profile = TindeqProgressor()
        var forceHandle: UInt16 = 0
        var controlHandle: UInt16?
        let source: any Service
        if let path = configuration.replayPath {
            let survey: CaptureSurvey
            do {
                survey = try CaptureSurvey.scan(path: path)
            } catch {
                throw .replay(error)
            }
            guard let choice = survey.chooseForceHandle(option: nil) else {
                throw .replay(.noForceHandle(notifyingHandles: survey.notifyingHandles, hasDiscovery: !survey.gatt.isEmpty))
            }
            forceHandle = choice.handle
            controlHandle = choice.controlHandle
            source = ReplaySource(path: path, speed: configuration.replaySpeed, ring: ring, gate: gate, logger: logger)
        } else if let radio {
            let bluez = BlueZSource(
                configuration: radio, ring: ring, sessionGapMicros: settings.sessionGapMicros, activity: activity,
                status: status, outbox: SocketOutbox(wake: fanOut.wake), logger: logger)
            forceHandle = RadioRing.forceHandle
            controlHandle = RadioRing.controlHandle
            device = bluez.requests
            source = bluez
        } else {
            source = IdleSource(ring: ring)
        }
        let pipeline = PipelineService(
            ring: ring, profile: profile, forceHandle: forceHandle, controlHandle: controlHandle, settings: settings,
            fanOut: fanOut, status: status,
            stateAtEnd: configuration.replayPath != nil ? "ended" : radio == nil ? "idle" : nil, activity: activity,
            logger: logger)

        let watchGroupID = getgrnam(configuration.watchGroup).map { $0.pointee.gr_gid }
        let authorization = Authorization(
            daemonUID: getuid(), watchGroupID: watchGroupID, watchGroupName: configuration.watchGroup)
        let server = try SocketServer(
            configuration: configuration, authorization: authorization, fanOut: fanOut, status: status, gate: gate,
            device: device, logger: logger)
        let notifier = SystemdNotifier(
            environment: environment, readyStatus: "Listening on \(configuration.socketPath)", logger: logger)

        // Reverse order on shutdown: notifier, source, pipeline, server.
        var groupConfiguration = ServiceGroupConfiguration(
            services: [server, pipeline, source, notifier].map {
                .init(service: $0, successTerminationBehavior: .gracefullyShutdownGroup)
            },
            logger: logger)
        if configuration.handlesSignals {
            groupConfiguration.gracefulShutdownSignals = [.sigterm, .sigint]
        }
        group = ServiceGroup(configuration: groupConfiguration)
        self.server = server
    }

    /// Returns once the socket thread is polling, i.e. a client that connects now is greeted at once.
    /// - Important: Call while `run()` is running; it waits (in 5 ms steps) until then.
    public func waitUntilServing() async {
        while !server.serving.load(ordering: .acquiring) {
            try? await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Runs every service until a graceful shutdown (SIGTERM/SIGINT when configured, or `shutdown()`) completes.
    /// - Throws: the first error a service throws.
    public func run() async throws {
        try await group.run()
    }

    /// Starts a graceful shutdown; `run()` returns once every service has finished.
    public func shutdown() async {
        await group.triggerGracefulShutdown()
    }
}
