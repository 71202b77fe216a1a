import GripAnalysis
import GripConfig
import GripEntitlements
import GripMQTT
import GripStore
import GripProtocol
import GripRelease
import GripStream
import GripSync

/// Everything `griptrackd` needs to start, already validated by the executable.
package struct DaemonConfiguration: Sendable {
    /// Where the daemon listens; a stale socket file there is replaced, a live one is an error.
    package var socketPath: String
    /// A btsnoop capture to feed into the pipeline instead of the radio, or nil.
    package var replayPath: String?
    /// Replay pace: capture time divided by this factor (1 = realtime).
    package var replaySpeed: Double
    /// Hold the replay until the first client sends WATCH (demos and tests: nobody misses the start).
    package var replayWaitsForWatcher: Bool
    /// The group whose members may watch (besides root and the daemon's own user).
    package var watchGroup: String
    /// Bytes queued for one client before it counts as slow and is dropped.
    package var clientBacklogLimit: Int
    /// Bytes queued for all clients together; past it the client furthest behind is dropped, so no number of
    /// silent clients takes the daemon past `clientBudgetBytes` + a line (docs/protocol.md, "Limits").
    package var clientBudgetBytes = 4 << 20
    /// Connected clients at most; one more is told so and closed.
    package var maxClients = 64
    /// Install SIGTERM/SIGINT handlers that start a graceful shutdown (the executable does; tests do not).
    package var handlesSignals: Bool
    /// Give back the executable's pages that start-up and connecting touched, once serving and 10 s into each
    /// connection (`ExecutablePages`; the executable does; tests do not, their process being the test runner).
    package var releasesStartupPages = false
    /// The release string sent in the VERSION greeting.
    package var release: String
    /// The recordings database (docs/design.md, "Storage": the unit's StateDirectory in system mode).
    package var databasePath: String
    /// The entitlement context: `[entitlements] bypass` from the configuration and the free plan.
    package var access: AccessContext
    /// The group whose members may grant and revoke Pro (besides root).
    package var adminGroup: String
    /// After the capture, keep the stream open (like a connected device that went quiet) until shutdown, instead of
    /// ending it; an explicit recording then lasts until STOP (tests, demos).
    package var replayKeepsStreamOpen = false
    /// SO_SNDBUF for client connections, or nil for the kernel's default; a small value makes a stalled reader
    /// reach the backlog limit sooner (tests).
    package var clientSendBufferBytes: Int? = nil
    /// The BlueZ source's settings; used when there is no replay. nil (and no replay): no source at all.
    package var radio: RadioConfiguration? = nil
    /// Idle time that ends a recording (`[recording] session_gap_seconds`); the radio also stops measuring then.
    package var sessionGap: Duration = .seconds(300)
    /// The configuration file's settings; the daemon verifies App Store signed data (PRO import) with its
    /// `[app_store]` section.
    package var file = GriptrackConfig()

    /// The correction the pipeline applies: `[device] scale` and `offset_kg`, only while the radio drives the
    /// sensor at `[device] address` they were measured on (not a capture, not `record --direct --device OTHER`).
    var sensorCorrection: ForceCorrection? {
        guard replayPath == nil, let address = radio?.address, address == file.device.address else { return nil }
        return file.device.correction
    }

    /// `[sync]`: when set, a sync service pushes the database's outbox every interval (griptrackd sets it; the
    /// CLI's in-process daemon does not, `griptrack sync` pushes its database).
    package var sync: SyncConfiguration? = nil

    /// `[mqtt]`: when set, the daemon publishes to an MQTT broker with Home Assistant discovery (griptrackd sets it
    /// from `DaemonMQTT`; the CLI's in-process daemon does not).
    package var mqtt: MQTTSettings? = nil

    /// Rewrites a peer's user id and groups before authorization: `(uid, gids) -> (uid, gids)`.
    package typealias PeerOverride = @Sendable (UInt32, [UInt32]) -> (UInt32, [UInt32])
    /// Tests only: what the daemon believes about every peer (refusing a user outside the groups needs a second
    /// user otherwise). nil, the default, uses the real SO_PEERCRED / SO_PEERGROUPS credentials.
    package var peerOverride: PeerOverride? = nil

    /// Creates a configuration; every parameter has the daemon's default.
    package init(
        socketPath: String = DaemonSocket.defaultPath, replayPath: String? = nil, replaySpeed: Double = 1,
        replayWaitsForWatcher: Bool = false, watchGroup: String = "griptrack", clientBacklogLimit: Int = 1 << 20,
        handlesSignals: Bool = false, release: String = DaemonConfiguration.release,
        databasePath: String = defaultDatabasePath, access: AccessContext = AccessContext(),
        adminGroup: String = "griptrack-admin"
    ) {
        self.socketPath = socketPath
        self.replayPath = replayPath
        self.replaySpeed = replaySpeed
        self.replayWaitsForWatcher = replayWaitsForWatcher
        self.watchGroup = watchGroup
        self.clientBacklogLimit = clientBacklogLimit
        self.handlesSignals = handlesSignals
        self.release = release
        self.databasePath = databasePath
        self.access = access
        self.adminGroup = adminGroup
    }

    /// The system database (written only by the daemon).
    package static let defaultDatabasePath = "/var/lib/griptrack/griptrack.db"

    /// griptrack's release, as reported in VERSION.
    package static let release = GriptrackRelease.version
}
