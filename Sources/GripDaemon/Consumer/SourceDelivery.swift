import GripBlueZ

/// How the source hands notifications to the consumer, which decides when a batched SAMPLES line is due
/// (``LiveWriter``): at the end of each 40 ms burst when the source delivers in bursts, else on the consumer's own
/// 40 ms schedule. Bursts save the consumer a wake-up per notification and one per line; both sources below burst
/// only while no watcher takes the immediate pace (``NotificationPacing/isImmediate``).
enum SourceDelivery: Sendable {
    /// Each notification as it arrives: StartNotify signals, advertisements, a replay at full speed, no source.
    case asTheyArrive
    /// A radio whose acquired notify socket the consumer thread drains every batch interval while it is paced.
    case drainedRadio(NotificationPacing)
    /// A replay at a fixed speed, which pushes the notifications due within each batch interval together.
    case pacedReplay(NotificationPacing)

    /// The pacing whose drains run on the consumer thread (nil: nothing to drain there).
    var drainPacing: NotificationPacing? {
        if case .drainedRadio(let pacing) = self { return pacing }
        return nil
    }

    /// Whether the notifications that just arrived are one burst: then they are one batched SAMPLES line.
    /// One relaxed atomic load; called once per consumer wake-up.
    var arrivesInBursts: Bool {
        switch self {
        case .asTheyArrive: return false
        case .drainedRadio(let pacing): return pacing.isDraining
        case .pacedReplay(let pacing): return !pacing.isImmediate
        }
    }
}
