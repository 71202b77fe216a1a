import NIOCore

/// What the parked writer of an event stream is resumed with (``EventFanout``).
enum EventDelivery: Sendable {
    /// The shared WATCH connection opened: the stream may answer 200.
    case linked
    /// Server-Sent Events frames to write, in order.
    case frames([ByteBuffer])
    /// The stream is over: the daemon closed, the stream fell behind or was ended, or the link never opened.
    case ended
}
