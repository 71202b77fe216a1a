import NIOCore

/// The decisions of one shared WATCH (``SharedWatch``): when its daemon connection opens and closes, what each
/// event stream subscribed to it is owed, and which stream is dropped for falling behind. No I/O: the caller carries
/// out what each call returns. Generic over the daemon connection, the parked writer's waiter and the browser's
/// connection, so tests drive it with plain values.
///
/// A stream is in ``subscribers`` from ``join(peer:)`` until it ends; a stream that ended is simply gone, and its
/// writer learns so from ``take(_:)`` or ``park(_:waiter:)``.
struct EventFanout<Connection, Waiter, Peer> {
    /// The daemon connection all streams share.
    enum Link {
        /// None: the next stream that joins opens one.
        case closed
        /// Being opened (by the stream whose join said ``JoinAction/connect(generation:)``).
        case connecting(generation: Int)
        /// Open. `preamble` holds the daemon's greeting and its WATCH reply, which every later stream is sent first,
        /// so each stream starts as a WATCH connection of its own would.
        case open(generation: Int, connection: Connection, preamble: [ByteBuffer])
    }

    /// What one event stream is owed.
    enum Subscriber {
        /// Waiting for the link to open; its waiter, once parked, hears ``Delivery/linked`` or ``Delivery/ended``.
        case joining(Waiter?)
        /// Frames not yet taken by its writer, and how many its writer took and is still writing: together at most
        /// the budget, or the stream is dropped.
        case queued([ByteBuffer], inFlight: Int)
        /// Its writer waits with nothing to write.
        case parked(Waiter)
        /// The link closed: these frames, then the end.
        case finishing([ByteBuffer])
        /// Never seen outside a mutation (it lets a payload be changed in place without copying it).
        case modifying
    }

    typealias Delivery = EventDelivery

    enum JoinAction: Equatable, Sendable {
        /// Open the daemon connection for `generation`, then wait for the link.
        case connect(generation: Int)
        /// Another stream is opening it: wait for the link.
        case wait
        /// The link is open: the stream is subscribed.
        case joined
    }

    /// What the writer of a stream does next.
    enum Take: Sendable {
        case frames([ByteBuffer])
        /// Nothing pending: park.
        case empty
        case ended
    }

    /// Waiters to resume and browsers to drop, after a change.
    struct Effects {
        var resume: [(Waiter, Delivery)] = []
        /// Streams dropped for falling behind: close their connections.
        var drop: [Peer] = []
        /// A daemon connection nobody needs any more: close it.
        var close: Connection?
    }

    /// At most this many frames waiting for one stream (queued plus being written).
    let budget: Int
    private(set) var link = Link.closed
    private(set) var subscribers: [Int: (peer: Peer, state: Subscriber)] = [:]
    private var nextID = 0
    private var nextGeneration = 0

    init(budget: Int) {
        precondition(budget >= 1)
        self.budget = budget
    }

    /// The streams that still want lines (not those finishing after the link closed).
    var live: Int { subscribers.values.count { if case .finishing = $0.state { false } else { true } } }

    /// A new event stream: subscribed at once to an open link, or waiting for one to open.
    mutating func join(peer: Peer) -> (id: Int, action: JoinAction) {
        let id = nextID
        nextID += 1
        switch link {
        case .closed:
            let generation = nextGeneration
            nextGeneration += 1
            link = .connecting(generation: generation)
            subscribers[id] = (peer, .joining(nil))
            return (id, .connect(generation: generation))
        case .connecting:
            subscribers[id] = (peer, .joining(nil))
            return (id, .wait)
        case .open(_, _, let preamble):
            subscribers[id] = (peer, .queued(preamble, inFlight: 0))
            return (id, .joined)
        }
    }

    /// Parks a joining stream until the link opens.
    /// - Returns: what to resume `waiter` with at once (the link opened or failed meanwhile), or nil: parked.
    mutating func awaitLink(_ id: Int, waiter: Waiter) -> Delivery? {
        guard let subscriber = subscribers[id] else { return .ended }
        guard case .joining = subscriber.state else { return .linked }
        subscribers[id]!.state = .joining(waiter)
        return nil
    }

    /// The daemon connection of `generation` is up (before it has delivered any line).
    mutating func connected(generation: Int, connection: Connection) -> Effects {
        var effects = Effects()
        guard case .connecting(generation) = link else {
            effects.close = connection  // nobody is waiting for it any more
            return effects
        }
        guard live > 0 else {
            link = .closed
            effects.close = connection
            return effects
        }
        link = .open(generation: generation, connection: connection, preamble: [])
        for index in subscribers.values.indices {
            guard case .joining(let waiter) = subscribers.values[index].state else { continue }
            subscribers.values[index].state = .queued([], inFlight: 0)
            if let waiter { effects.resume.append((waiter, .linked)) }
        }
        return effects
    }

    /// The daemon connection of `generation` could not be made: every stream waiting for it ends.
    mutating func connectFailed(generation: Int) -> Effects {
        var effects = Effects()
        guard case .connecting(generation) = link else { return effects }
        link = .closed
        for (id, subscriber) in subscribers {
            guard case .joining(let waiter) = subscriber.state else { continue }
            subscribers[id] = nil
            if let waiter { effects.resume.append((waiter, .ended)) }
        }
        return effects
    }

    /// A line from the daemon connection of `generation`, as a frame, for every stream.
    /// - Parameter retained: the greeting or the WATCH reply, which later streams are sent first.
    mutating func receive(_ frame: ByteBuffer, retained: Bool, generation: Int) -> Effects {
        var effects = Effects()
        guard case .open(generation, let connection, var preamble) = link else { return effects }
        if retained {
            link = .closed  // no second reference to the preamble while it grows
            preamble.append(frame)
            link = .open(generation: generation, connection: connection, preamble: preamble)
        }
        var dropped: [Int] = []
        for index in subscribers.values.indices {
            switch subscribers.values[index].state {
            case .parked(let waiter):
                subscribers.values[index].state = .queued([], inFlight: 1)
                effects.resume.append((waiter, .frames([frame])))
            case .queued(var frames, let inFlight):
                guard frames.count + inFlight < budget else {
                    dropped.append(subscribers.keys[index])
                    continue
                }
                subscribers.values[index].state = .modifying
                frames.append(frame)
                subscribers.values[index].state = .queued(frames, inFlight: inFlight)
            case .joining, .finishing, .modifying:
                continue
            }
        }
        for id in dropped {
            effects.drop.append(subscribers.removeValue(forKey: id)!.peer)
        }
        if !dropped.isEmpty { closeIfUnused(&effects) }
        return effects
    }

    /// The daemon connection of `generation` closed: every stream gets what is queued for it, then ends.
    mutating func linkClosed(generation: Int) -> Effects {
        var effects = Effects()
        guard case .open(generation, _, _) = link else { return effects }
        link = .closed
        for (id, subscriber) in subscribers {
            switch subscriber.state {
            case .parked(let waiter):
                subscribers[id] = nil
                effects.resume.append((waiter, .ended))
            case .queued(let frames, _):
                subscribers[id]!.state = .finishing(frames)
            case .joining, .finishing, .modifying:
                continue
            }
        }
        return effects
    }

    /// What the writer of `id` writes next, once it wrote what it took before.
    mutating func take(_ id: Int) -> Take {
        guard let index = subscribers.index(forKey: id) else { return .ended }
        switch subscribers.values[index].state {
        case .queued(let frames, _) where !frames.isEmpty:
            subscribers.values[index].state = .queued([], inFlight: frames.count)
            return .frames(frames)
        case .queued:
            return .empty
        case .joining:
            preconditionFailure("a stream's writer took before its link opened")
        case .finishing(let frames) where !frames.isEmpty:
            subscribers.values[index].state = .finishing([])
            return .frames(frames)
        case .finishing:
            subscribers.remove(at: index)
            return .ended
        case .parked, .modifying:
            preconditionFailure("a stream's writer took while it was parked")
        }
    }

    /// Parks the writer of `id`, which found nothing to take.
    /// - Returns: what to resume `waiter` with at once (frames came, or the stream ended, meanwhile), or nil: parked.
    mutating func park(_ id: Int, waiter: Waiter) -> Delivery? {
        switch take(id) {
        case .frames(let frames): return .frames(frames)
        case .ended: return .ended
        case .empty:
            subscribers[id]!.state = .parked(waiter)
            return nil
        }
    }

    /// Ends stream `id` (its writer is done, its connection closed, its credential revoked, or its task cancelled);
    /// nothing if it already ended.
    mutating func leave(_ id: Int) -> Effects {
        var effects = Effects()
        guard let subscriber = subscribers.removeValue(forKey: id) else { return effects }
        switch subscriber.state {
        case .parked(let waiter): effects.resume.append((waiter, .ended))
        case .joining(let waiter?): effects.resume.append((waiter, .ended))
        default: break
        }
        closeIfUnused(&effects)
        return effects
    }

    /// Closes the link: the web app stops. Every stream ends as when the daemon closes.
    mutating func shutDown() -> Effects {
        var effects = Effects()
        if case .open(let generation, let connection, _) = link {
            effects = linkClosed(generation: generation)
            effects.close = connection
        }
        return effects
    }

    /// The last stream that wanted lines left: the daemon connection goes (a connection still opening is closed
    /// when it opens, by ``connected(generation:connection:)``).
    private mutating func closeIfUnused(_ effects: inout Effects) {
        guard live == 0, case .open(_, let connection, _) = link else { return }
        link = .closed
        effects.close = connection
    }
}

extension EventFanout.Effects: Sendable where Connection: Sendable, Waiter: Sendable, Peer: Sendable {}
