import GripBlueZ
import GripStream
import GripWire
import Logging
import ServiceLifecycle
import Synchronization

/// Whether the advertising device is "connected" (GripWire's `AdvertisementSilence`, the rule replay follows too) and
/// who sent the last advertisement, shared by the D-Bus thread (each advertisement) and the silence task (the deadline).
final class AdvertisedLink: Sendable {
    private struct State {
        var silence: AdvertisementSilence
        var address = ""
        var name: String?
    }

    private let state: Mutex<State>
    /// One element per down → up transition, for the silence task.
    let wake = Wake()

    init(silenceMicros: Int64) {
        state = Mutex(State(silence: AdvertisementSilence(silenceMicros: silenceMicros)))
    }

    /// While the link is up: when it goes down unless another advertisement comes, and the last sender; else nil.
    var current: (downAtMicros: Int64, address: String, name: String?)? {
        state.withLock { state in state.silence.downAtMicros.map { ($0, state.address, state.name) } }
    }

    /// D-Bus thread: records an advertisement. - Returns: what it did to the link.
    func noteAdvertisement(at micros: Int64, from address: String, named name: String?) -> AdvertisementSilence.Change {
        state.withLock { state in
            state.address = address
            state.name = name
            return state.silence.advertisement(at: micros)
        }
    }

    /// Marks the link down if its silence has run out by `micros`. - Returns: whether it went down.
    func expire(at micros: Int64) -> Bool {
        state.withLock { $0.silence.expire(at: micros) }
    }

    /// Marks the link down whatever its last advertisement. - Returns: whether it was up.
    func markDown() -> Bool {
        state.withLock { $0.silence.markDown() }
    }

    /// An async stream with one producer on the D-Bus thread and one consumer task.
    final class Wake: Sendable {
        let stream: AsyncStream<Void>
        private let continuation: AsyncStream<Void>.Continuation

        init() {
            (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        }

        func yield() { continuation.yield() }
    }
}
