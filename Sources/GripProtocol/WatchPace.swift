/// How a watcher receives SAMPLES (WATCH `pace`, protocol 1.3; `slow` 1.7).
///
/// Every pace gets every sample, and the samples before an event before the event; the paces differ in how many
/// lines carry them, that is how often the watcher is woken.
package enum WatchPace: String, Sendable, CaseIterable {
    /// At most 25 lines a second, for displays (the default).
    case batched
    /// Each notification's samples as soon as they are decoded, for biofeedback and programs reacting to force.
    case immediate
    /// At most 2 lines a second, for bridges and gauges that show the latest force (the MQTT bridge).
    case slow

    /// The shortest time between two SAMPLES lines at this pace, apart from the line before an event (nil: none).
    package var samplesIntervalMicros: Int64? {
        switch self {
        case .batched: 40_000
        case .immediate: nil
        case .slow: 500_000
        }
    }
}
