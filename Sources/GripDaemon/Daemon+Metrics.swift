import Foundation
import GripMetrics
import GripStream
import GripWire

extension Daemon {
    /// The daemon's metrics in Prometheus' text format, for `GET /metrics` on the HTTP listener
    /// (docs/metrics.md, "Prometheus"). Reads the counters STATUS keeps; costs the daemon's threads nothing.
    /// - Returns: the exposition text (`Content-Type: text/plain; version=0.0.4; charset=utf-8`).
    /// - Important: Any thread; concurrent scrapes are serialised.
    package func metricsExposition() -> String {
        exposition.exposition(metricsSnapshot())
    }

    /// The counters now, as plain numbers.
    func metricsSnapshot() -> MetricsSnapshot {
        let status = self.status.snapshot
        let counters = self.status.counters
        var snapshot = MetricsSnapshot()
        snapshot.notifications = status.frames.total
        snapshot.framesDecoded = status.frames.decoded
        snapshot.samples = counters.samples.load(ordering: .relaxed)
        snapshot.rejected = Dictionary(
            uniqueKeysWithValues: FrameRejection.allCases.map { ($0.rawValue, status.frames[$0]) })
        snapshot.ringDropped = status.ringDropped
        snapshot.ringOversized = status.ringOversized
        snapshot.linkUp = DaemonStatus.linkUp(status.deviceState)
        snapshot.linkUps = status.linkUps
        snapshot.recorderCommits = counters.commits.load(ordering: .relaxed)
        snapshot.storageTrouble = status.recorder.problem != nil
        snapshot.heldSamples = status.recorder.heldSamples
        if let access = status.access {
            snapshot.recordingsStored = access.stored
            snapshot.recordingsLimit = access.limit
            snapshot.plan = access.pro ? "pro" : "free"
        }
        snapshot.clients = counters.clients.load(ordering: .relaxed)
        snapshot.watchers = counters.watchers.load(ordering: .relaxed)
        snapshot.clientBacklogBytes = counters.backlogBytes.load(ordering: .relaxed)
        snapshot.clientsDropped = counters.clientsDropped.load(ordering: .relaxed)
        if let sync = sync?.snapshot {
            snapshot.sync = MetricsSnapshot.Sync(
                pendingRows: sync.pendingRows,
                secondsSinceSuccess: sync.lastSuccessAt.map { max(0, Date().timeIntervalSince($0)) },
                failures: sync.failures)
        }
        if let mqtt = mqtt?.counters {
            snapshot.mqtt = MetricsSnapshot.MQTT(
                connected: mqtt.connected, connects: mqtt.connects, published: mqtt.published, dropped: mqtt.dropped,
                queued: mqtt.queued, commandsRefused: mqtt.commandsRefused)
        }
        snapshot.residentBytes = Self.residentBytes()
        return snapshot
    }

    /// VmRSS from /proc/self/statm (resident pages × page size).
    static func residentBytes() -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return nil }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}
