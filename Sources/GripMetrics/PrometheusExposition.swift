import Prometheus
import Synchronization

/// The daemon's metrics in Prometheus' text format, through swift-prometheus's collector registry (the backend
/// swift-metrics' `PrometheusMetricsFactory` writes into).
///
/// The daemon already counts everything (STATUS), so nothing is counted twice: each scrape takes a
/// ``MetricsSnapshot`` and brings the registry's counters up to it (by the difference since the last scrape, as
/// Prometheus counters only go up) and sets its gauges. One registry per daemon, not the process-wide
/// `MetricsSystem`: tests run several daemons in one process.
package final class PrometheusExposition: Sendable {
    private let registry = PrometheusCollectorRegistry()
    /// The counters' values at the last scrape, by metric and labels.
    private let reported = Mutex<[String: Int]>([:])

    package init() {}

    /// The text for one scrape (`Content-Type: text/plain; version=0.0.4`).
    /// - Parameter snapshot: the daemon's counters now.
    /// - Returns: every metric, with HELP and TYPE lines.
    package func exposition(_ snapshot: MetricsSnapshot) -> String {
        reported.withLock { reported in
            func counter(_ name: String, _ help: String, _ value: Int, labels: [(String, String)] = []) {
                let key = name + labels.map { "\($0.0)=\($0.1)" }.joined(separator: ",")
                let metric = registry.makeCounter(descriptor: Self.descriptor(name, help), labels: labels)
                let delta = value - (reported[key] ?? 0)
                // A counter the daemon restarted from 0 cannot happen within one process; never go down regardless.
                if delta > 0 {
                    metric.increment(by: Int64(delta))
                    reported[key] = value
                }
            }
            func gauge(_ name: String, _ help: String, _ value: Double, labels: [(String, String)] = []) {
                registry.makeGauge(descriptor: Self.descriptor(name, help), labels: labels).set(value)
            }
            func flag(_ value: Bool) -> Double { value ? 1 : 0 }

            counter("griptrack_notifications_total", "Notifications that reached the consumer.", snapshot.notifications)
            counter("griptrack_frames_decoded_total", "Notifications decoded into samples or a device message.", snapshot.framesDecoded)
            counter("griptrack_samples_total", "Force samples decoded.", snapshot.samples)
            for (reason, count) in snapshot.rejected.sorted(by: { $0.key < $1.key }) {
                counter(
                    "griptrack_frames_rejected_total", "Notifications rejected, by reason.", count,
                    labels: [("reason", reason)])
            }
            counter("griptrack_ring_dropped_total", "Notifications lost to a full ring.", snapshot.ringDropped)
            counter("griptrack_ring_oversized_total", "Notifications longer than a ring slot.", snapshot.ringOversized)
            gauge("griptrack_device_link_up", "1 while the device's link is up.", flag(snapshot.linkUp))
            counter("griptrack_device_connects_total", "Times the device's link came up (reconnects: one less).", snapshot.linkUps)
            counter("griptrack_recorder_commits_total", "Sample chunks committed to the store.", snapshot.recorderCommits)
            gauge("griptrack_recorder_storage_trouble", "1 while the store refuses writes.", flag(snapshot.storageTrouble))
            gauge("griptrack_recorder_held_samples", "Samples held in memory while the store refuses writes.", Double(snapshot.heldSamples))
            if let stored = snapshot.recordingsStored, let plan = snapshot.plan {
                for name in ["free", "pro"] {
                    gauge(
                        "griptrack_recordings_stored", "Recordings stored, under the daemon's current plan.",
                        name == plan ? Double(stored) : 0, labels: [("plan", name)])
                }
            }
            if let limit = snapshot.recordingsLimit {
                gauge("griptrack_recordings_limit", "Recordings the free plan keeps.", Double(limit))
            }
            gauge("griptrack_clients", "Socket clients connected.", Double(snapshot.clients))
            gauge("griptrack_watchers", "Socket clients watching the live stream.", Double(snapshot.watchers))
            gauge("griptrack_client_backlog_bytes", "Bytes queued for all socket clients.", Double(snapshot.clientBacklogBytes))
            counter("griptrack_clients_dropped_total", "Socket clients dropped for falling behind or failing.", snapshot.clientsDropped)
            if let sync = snapshot.sync {
                gauge("griptrack_sync_pending_rows", "Outbox rows waiting to be pushed.", Double(sync.pendingRows))
                gauge("griptrack_sync_failures", "Failed pushes in a row.", Double(sync.failures))
                if let age = sync.secondsSinceSuccess {
                    gauge("griptrack_sync_last_success_age_seconds", "Seconds since the last successful push.", age)
                }
            }
            if let mqtt = snapshot.mqtt {
                gauge("griptrack_mqtt_connected", "1 while connected to the MQTT broker.", flag(mqtt.connected))
                counter("griptrack_mqtt_connects_total", "Connections to the MQTT broker (reconnects: one less).", mqtt.connects)
                counter("griptrack_mqtt_messages_published_total", "MQTT messages handed to the client library.", mqtt.published)
                counter("griptrack_mqtt_messages_dropped_total", "MQTT messages dropped by the full outgoing queue.", mqtt.dropped)
                gauge("griptrack_mqtt_queue_messages", "MQTT messages waiting in the outgoing queue.", Double(mqtt.queued))
                counter("griptrack_mqtt_commands_refused_total", "MQTT commands refused.", mqtt.commandsRefused)
            }
            if let resident = snapshot.residentBytes {
                gauge("process_resident_memory_bytes", "Resident memory size in bytes.", Double(resident))
            }
        }
        return registry.emitToString()
    }

    /// The names here are whole (unit suffix included), so the descriptor's unit part stays empty.
    private static func descriptor(_ name: String, _ help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(metricName: name, unitName: "", helpText: help)
    }
}
