/// What the MQTT side has done since start, for metrics and logs.
public struct MQTTCounters: Sendable, Equatable {
    /// Connected to the broker now.
    public var connected = false
    /// Successful connections (the first included): reconnects are `connects - 1` when positive.
    public var connects = 0
    /// Messages handed to libmosquitto.
    public var published = 0
    /// Messages refused because the outgoing queue was full (the broker down or too slow for too long).
    public var dropped = 0
    /// Queued states replaced by a newer value of the same topic before they went out (not lost: outdated).
    public var superseded = 0
    /// Messages waiting in the queue now.
    public var queued = 0
    /// Commands received from the broker and refused (commands off, unknown payload, or refused by the daemon).
    public var commandsRefused = 0

    public init() {}
}
