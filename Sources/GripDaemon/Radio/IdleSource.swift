import GripStream
import ServiceLifecycle

/// The source used until the radio is wired: pushes nothing, and on shutdown ends the stream so the consumer
/// thread returns.
struct IdleSource: Service, CustomStringConvertible {
    let ring: NotificationRing

    var description: String { "IdleSource" }

    func run() async throws {
        try? await gracefulShutdown()
        _ = ring.pushWaiting(kind: .endOfStream, handle: 0, hostMicros: 0, value: UnsafeRawBufferPointer(start: nil, count: 0))
    }
}
