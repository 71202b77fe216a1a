import Foundation
import Glibc
import GripAnalysis
import GripBlueZ
import GripMetrics
import GripMQTT
import GripStore
import GripStream
import GripSync
import GripWire
import Logging
import ServiceLifecycle

/// `griptrackd`: a source feeding the ring, the consumer loop, the recorder, the store reader (protocol 1.2 queries),
/// the socket server and the systemd notifier, run as one `ServiceGroup`.
///
/// Services start together and shut down in reverse order: the notifier says STOPPING=1, the source ends the
/// stream, the consumer drains it (closing an open effort and recording), the recorder stores that last recording
/// and finishes its row, and the socket server passes the last events and replies on before it closes and removes
/// the socket file.
package final class Daemon: Sendable {
    /// The path the daemon listens on.
    package let socketPath: String
    private let group: ServiceGroup
    private let server: SocketServer
    /// The web app's credentials and pairing codes (docs/web.md); the executable hands them to its web server.
    package let webAccess: WebAccess
    /// For `/metrics` (``metricsExposition()``).
    let mqtt: MQTTBridge?
    let status: DaemonStatus
    let sync: SyncService?
    let exposition = PrometheusExposition()
    private let releasesStartupPages: Bool
    private let logger: Logger

    /// How long systemd waits for a start that upgrades the database (`EXTEND_TIMEOUT_USEC`): 30 minutes, for a
    /// year of recordings on a slow card.
    static let upgradeTimeoutMicros = 30 * 60 * 1_000_000

    /// Validates the replay (if any), binds the socket and assembles the services; nothing runs yet.
    /// - Parameters:
    ///   - configuration: the validated configuration.
    ///   - environment: the process environment (`NOTIFY_SOCKET`, `WATCHDOG_USEC`, `WATCHDOG_PID`).
    ///   - logger: the root logger; every service logs through it.
    /// - Throws: `DaemonError` when the replay capture is unusable, the database cannot be opened or the socket
    ///   cannot be bound.
    package init(
        configuration: DaemonConfiguration, environment: [String: String] = ProcessInfo.processInfo.environment,
        logger: Logger
    ) throws(DaemonError) {
        socketPath = configuration.socketPath
        releasesStartupPages = configuration.releasesStartupPages
        self.logger = logger
        // First, so that from the socket's existence on a SIGTERM is caught; one before the services start shuts
        // them down as soon as they run.
        let signals = configuration.handlesSignals ? try SignalShutdown(logger: logger) : nil
        // A slot is 576 bytes and the ring cycles through all of them, so every slot ends up resident. A radio
        // delivers at most 250 notifications a second and a paced drain at most the ~270 its socket holds: 1,024
        // slots (576 KiB) absorb a 4 s stall of the consumer at 250 Hz. A replay pushes as fast as its speed allows
        // and keeps the larger ring.
        let ring = NotificationRing(capacityPowerOfTwo: configuration.replayPath == nil ? 1024 : 4096)
        let live = try LiveWatchers(backlogLimit: configuration.clientBacklogLimit)
        // Batched until a watcher takes the immediate pace (only an acquired notify socket can be read in batches).
        let pacing = NotificationPacing()
        let gate = StartGate(open: !configuration.replayWaitsForWatcher)
        let radio = configuration.replayPath == nil ? configuration.radio : nil
        let status = DaemonStatus(source: configuration.replayPath != nil ? "replay" : radio != nil ? "bluez" : "none")
        // The watchdog confirms liveness only while none of these threads is stuck in one wake-up.
        let liveness = ThreadLiveness()
        let notifier = SystemdNotifier(
            environment: environment, readyStatus: "Listening on \(configuration.socketPath)", liveness: liveness,
            logger: logger)
        let store: RecordingStore
        do {
            store = try RecordingStore(path: configuration.databasePath) { migrations in
                logger.notice(
                    "Upgrading the database to this version; a large file can take minutes",
                    metadata: ["store.path": "\(configuration.databasePath)", "store.migrations": "\(migrations)"])
                // systemd gives a start 90 s by default, and an upgrade that copies every sample of a big file on an
                // SD card can take longer; stopped half way it rolls back and would start over at every restart.
                notifier.notify(
                    "EXTEND_TIMEOUT_USEC=\(Self.upgradeTimeoutMicros)\n"
                        + "STATUS=Upgrading the database at \(configuration.databasePath)")
            }
        } catch {
            throw .store(error)
        }
        if !store.recoveredOnOpen.isEmpty {
            logger.notice(
                "Recovered unfinished recordings",
                metadata: [
                    "store.path": "\(configuration.databasePath)", "recovered.count": "\(store.recoveredOnOpen.count)",
                    "recovered.ids": "\(store.recoveredOnOpen.map(\.rawValue))",
                ])
        }
        do {
            webAccess = try WebAccess(store: store, logger: logger)
        } catch {
            throw .store(error)
        }
        let control = PipelineControl(ring: ring)
        let recorderFeed = try RecorderFeed(purpose: "recorder feed")
        let recorderChannels = RecorderChannels(
            requests: try Mailbox(purpose: "recorder requests"), replies: try Mailbox(purpose: "replies"))
        var segmenterSettings = SegmenterSettings()
        segmenterSettings.sessionGapMicros = configuration.sessionGap.micros
        let activity = EffortActivity()
        var device: DeviceRequests?

        var profile: any DeviceProfile = DeviceProfiles.all[0]
        var forceHandle: UInt16 = 0
        var controlHandle: UInt16?
        let source: any Service
        var delivery = SourceDelivery.asTheyArrive
        if let path = configuration.replayPath {
            let choice: ForceHandleChoice
            do {
                choice = try ForceHandleChooser.scan(path: path, option: nil)
            } catch {
                throw .replay(error)
            }
            profile = choice.profile.calibrated(configuration.file.device.calibration)
            forceHandle = choice.handle
            controlHandle = choice.controlHandle
            let replay = ReplaySource(
                path: path, speed: configuration.replaySpeed, ring: ring, gate: gate, pacing: pacing,
                keepsStreamOpen: configuration.replayKeepsStreamOpen, logger: logger)
            if replay.pushesBursts { delivery = .pacedReplay(pacing) }
            source = replay
        } else if let radio {
            delivery = .drainedRadio(pacing)
            // The configuration key is checked against the table when the file is read; a name from code is not.
            profile = DeviceProfiles.named(radio.profile, calibration: configuration.file.device.calibration) ?? profile
            if profile.transport == .advertisement {
                let advertising = AdvertisementSource(
                    configuration: radio, profile: profile, ring: ring, status: status, outbox: recorderChannels.replies,
                    logger: logger)
                device = advertising.requests
                source = advertising
            } else {
                let bluez = BlueZSource(
                    configuration: radio, profile: profile, ring: ring,
                    sessionGapMicros: segmenterSettings.sessionGapMicros, pipeline: control, activity: activity,
                    status: status, outbox: recorderChannels.replies, pacing: pacing, logger: logger)
                device = bluez.requests
                source = bluez
            }
            forceHandle = RadioProducer.forceHandle
            controlHandle = RadioProducer.controlHandle
        } else {
            source = IdleSource(ring: ring)
        }
        if profile.lacksCalibration { throw .missingCalibration(device: profile.name) }
        status.update { [identifier = profile.identifier, correction = configuration.sensorCorrection] in
            $0.profile = identifier
            $0.correction = correction
        }
        let pipeline = Self.makePipeline(
            ring: ring, profile: profile, forceHandle: forceHandle, controlHandle: controlHandle,
            settings: segmenterSettings, correction: configuration.sensorCorrection, live: live,
            recorderFeed: recorderFeed, control: control,
            status: status,
            stateAtEnd: configuration.replayPath != nil ? "ended" : radio == nil ? "idle" : nil, activity: activity,
            liveness: liveness, delivery: delivery, releasesPages: configuration.releasesStartupPages,
            logger: logger)
        // Sync only reads the store (and acknowledges its outbox), on its own task: recording never waits for it.
        let sync = configuration.sync.map {
            SyncService(
                client: $0.client, store: store, context: configuration.access, interval: $0.interval, logger: logger)
        }
        let recorder = try DaemonRecorder(
            store: store,
            settings: DaemonRecorder.Settings(
                access: configuration.access,
                retentionMicros: segmenterSettings.preRollMicros + 60_000_000,
                device: configuration.replayPath.map { "capture " + ($0 as NSString).lastPathComponent } ?? profile.name,
                profile: profile.name, correction: configuration.sensorCorrection,
                recordingSaved: { sync?.pushSoon() }),
            feed: recorderFeed, requests: recorderChannels.requests, replies: recorderChannels.replies,
            control: control, status: status, liveness: liveness, logger: logger)

        let watchGroupID = getgrnam(configuration.watchGroup).map { $0.pointee.gr_gid }
        let adminGroupID = getgrnam(configuration.adminGroup).map { $0.pointee.gr_gid }
        let authorization = Authorization(
            daemonUID: getuid(), watchGroupID: watchGroupID, watchGroupName: configuration.watchGroup,
            adminGroupID: adminGroupID, adminGroupName: configuration.adminGroup)
        let reader = try StoreReader(
            store: store, access: configuration.access, replies: recorderChannels.replies, liveness: liveness,
            logger: logger)
        let server = try SocketServer(
            configuration: configuration, authorization: authorization, live: live, status: status, gate: gate,
            device: device, recorder: recorderChannels, reader: reader, sync: sync,
            importer: SignedDataImporter(config: configuration.file), liveness: liveness, pacing: pacing,
            web: webAccess, logger: logger)

        var services: [any Service] = [server, reader, recorder, pipeline, source, notifier]
        if let sync { services.append(sync) }
        // One more watcher of the socket, started after the server binds it (docs/home-assistant.md).
        let mqtt = configuration.mqtt.flatMap {
            MQTTBridge(
                settings: $0, socketPath: configuration.socketPath, release: configuration.release, model: profile.name,
                logger: logger)
        }
        if let mqtt { services.append(MQTTService(bridge: mqtt)) }
        if let signals { services.append(signals) }
        // Reverse order on shutdown: signals, mqtt, sync, notifier, source, pipeline, recorder, reader, server.
        let groupConfiguration = ServiceGroupConfiguration(
            services: services.map {
                .init(service: $0, successTerminationBehavior: .gracefullyShutdownGroup)
            },
            logger: logger)
        group = ServiceGroup(configuration: groupConfiguration)
        self.server = server
        self.mqtt = mqtt
        self.status = status
        self.sync = sync
    }

    /// The consumer for the chosen profile (the pipeline is generic, so its decoder is called directly on the hot
    /// path; this is where the table's existential is opened).
    private static func makePipeline<Profile: DeviceProfile>(
        ring: NotificationRing, profile: Profile, forceHandle: UInt16, controlHandle: UInt16?,
        settings: SegmenterSettings, correction: ForceCorrection?, live: LiveWatchers, recorderFeed: RecorderFeed,
        control: PipelineControl, status: DaemonStatus, stateAtEnd: String?, activity: EffortActivity, liveness: ThreadLiveness,
        delivery: SourceDelivery, releasesPages: Bool, logger: Logger
    ) -> any Service {
        PipelineService(
            ring: ring, profile: profile, forceHandle: forceHandle, controlHandle: controlHandle, settings: settings,
            correction: correction, live: live, recorderFeed: recorderFeed, control: control, status: status, stateAtEnd: stateAtEnd,
            activity: activity, liveness: liveness, delivery: delivery, releasesPages: releasesPages, logger: logger)
    }

    /// Returns once the socket thread is polling, i.e. a client that connects now is greeted at once, or when the
    /// calling task is cancelled.
    /// - Important: Call while `run()` is running; it waits (in 5 ms steps) until then.
    package func waitUntilServing() async {
        while !server.serving.load(ordering: .acquiring) {
            guard (try? await Task.sleep(for: .milliseconds(5))) != nil else { return }
        }
    }

    /// Runs every service until a graceful shutdown (SIGTERM/SIGINT when configured, or `shutdown()`) completes.
    /// - Throws: the first error a service throws.
    package func run() async throws {
        // Once serving, start-up is over: what it alone touched goes back (`ExecutablePages`).
        let releaseAfterStartUp = !releasesStartupPages ? nil : Task { [self] in
            await waitUntilServing()
            guard !Task.isCancelled else { return }
            let advised = ExecutablePages.release()
            logger.debug("Gave back the executable's start-up pages", metadata: ["bytes": "\(advised ?? 0)"])
        }
        defer { releaseAfterStartUp?.cancel() }
        try await group.run()
    }

    /// Starts a graceful shutdown; `run()` returns once every service has finished.
    package func shutdown() async {
        await group.triggerGracefulShutdown()
    }
}
