/// How a watcher receives SAMPLES (WATCH `pace`, protocol 1.3).
package enum WatchPace: String, Sendable {
    /// At most 25 lines a second, for displays (the default).
    case batched
    /// Each notification's samples as soon as they are decoded, for biofeedback and programs reacting to force.
    case immediate
}
