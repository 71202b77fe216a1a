/// The daemon's counters and states at one scrape, as plain numbers (GripDaemon reads them from what STATUS
/// already keeps; nothing here is counted per sample).
public struct MetricsSnapshot: Sendable, Equatable {
    /// Notifications that reached the consumer, and those that decoded.
    public var notifications = 0
    public var framesDecoded = 0
    /// Decoded samples.
    public var samples = 0
    /// Rejected frames by reason (`short`, `duplicate`, …), every reason listed even at 0.
    public var rejected: [String: Int] = [:]
    /// Notifications lost to a full ring, and values longer than a slot.
    public var ringDropped = 0
    public var ringOversized = 0
    /// The device's link is up now, and how often it came up.
    public var linkUp = false
    public var linkUps = 0
    /// Sample chunks the recorder committed.
    public var recorderCommits = 0
    /// The store refuses writes now; samples held in memory meanwhile.
    public var storageTrouble = false
    public var heldSamples = 0
    /// Recordings stored and the free plan's limit, and the plan (`free`, `pro`); nil before the first read.
    public var recordingsStored: Int?
    public var recordingsLimit: Int?
    public var plan: String?
    /// Socket clients, watchers among them, their queued bytes, and clients dropped for falling behind.
    public var clients = 0
    public var watchers = 0
    public var clientBacklogBytes = 0
    public var clientsDropped = 0
    /// `[sync]`: outbox rows waiting, seconds since the last successful push (nil: none yet), failures in a row.
    public var sync: Sync?
    /// `[mqtt]`: the bridge's state and counters.
    public var mqtt: MQTT?
    /// The process's resident memory (VmRSS), bytes.
    public var residentBytes: Int?

    public struct Sync: Sendable, Equatable {
        public var pendingRows: Int
        public var secondsSinceSuccess: Double?
        public var failures: Int

        public init(pendingRows: Int, secondsSinceSuccess: Double?, failures: Int) {
            self.pendingRows = pendingRows
            self.secondsSinceSuccess = secondsSinceSuccess
            self.failures = failures
        }
    }

    public struct MQTT: Sendable, Equatable {
        public var connected: Bool
        public var connects: Int
        public var published: Int
        public var dropped: Int
        public var queued: Int
        public var commandsRefused: Int

        public init(connected: Bool, connects: Int, published: Int, dropped: Int, queued: Int, commandsRefused: Int) {
            self.connected = connected
            self.connects = connects
            self.published = published
            self.dropped = dropped
            self.queued = queued
            self.commandsRefused = commandsRefused
        }
    }

    public init() {}
}
