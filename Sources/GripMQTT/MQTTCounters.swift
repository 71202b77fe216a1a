/// What the MQTT side has done since start, for metrics and logs.
package struct MQTTCounters: Sendable, Equatable {
    /// Connected to the broker now.
    package var connected = false
    /// Successful connections (the first included): reconnects are `connects - 1` when positive.
    package var connects = 0
    /// Messages handed to libmosquitto.
    package var published = 0
    /// Messages refused because the outgoing queue was full (the broker down or too slow for too long).
    package var dropped = 0
    /// Queued states replaced by a newer value of the same topic before they went out (not lost: outdated).
    package var superseded = 0
    /// Messages waiting in the queue now.
    package var queued = 0
    /// Commands received from the broker and refused (commands off, unknown payload, or refused by the daemon).
    package var commandsRefused = 0

    package init() {}
}
