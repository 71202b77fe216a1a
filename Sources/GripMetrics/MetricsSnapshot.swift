/// The daemon's counters and states at one scrape, as plain numbers (GripDaemon reads them from what STATUS
/// already keeps; nothing here is counted per sample).
package struct MetricsSnapshot: Sendable, Equatable {
    /// Notifications that reached the consumer, and those that decoded.
    package var notifications = 0
    package var framesDecoded = 0
    /// Decoded samples.
    package var samples = 0
    /// Rejected frames by reason (`short`, `duplicate`, …), every reason listed even at 0.
    package var rejected: [String: Int] = [:]
    /// Notifications lost to a full ring, and values longer than a slot.
    package var ringDropped = 0
    package var ringOversized = 0
    /// The device's link is up now, and how often it came up.
    package var linkUp = false
    package var linkUps = 0
    /// Sample chunks the recorder committed.
    package var recorderCommits = 0
    /// The store refuses writes now; samples held in memory meanwhile.
    package var storageTrouble = false
    package var heldSamples = 0
    /// Recordings stored and the free plan's limit, and the plan (`free`, `pro`); nil before the first read.
    package var recordingsStored: Int?
    package var recordingsLimit: Int?
    package var plan: String?
    /// Socket clients, watchers among them, their queued bytes, and clients dropped for falling behind.
    package var clients = 0
    package var watchers = 0
    package var clientBacklogBytes = 0
    package var clientsDropped = 0
    /// `[sync]`: outbox rows waiting, seconds since the last successful push (nil: none yet), failures in a row.
    package var sync: Sync?
    /// `[mqtt]`: the bridge's state and counters.
    package var mqtt: MQTT?
    /// The process's resident memory (VmRSS), bytes.
    package var residentBytes: Int?

    package struct Sync: Sendable, Equatable {
        package var pendingRows: Int
        package var secondsSinceSuccess: Double?
        package var failures: Int

        package init(pendingRows: Int, secondsSinceSuccess: Double?, failures: Int) {
            self.pendingRows = pendingRows
            self.secondsSinceSuccess = secondsSinceSuccess
            self.failures = failures
        }
    }

    package struct MQTT: Sendable, Equatable {
        package var connected: Bool
        package var connects: Int
        package var published: Int
        package var dropped: Int
        package var queued: Int
        package var commandsRefused: Int

        package init(connected: Bool, connects: Int, published: Int, dropped: Int, queued: Int, commandsRefused: Int) {
            self.connected = connected
            self.connects = connects
            self.published = published
            self.dropped = dropped
            self.queued = queued
            self.commandsRefused = commandsRefused
        }
    }

    package init() {}
}
