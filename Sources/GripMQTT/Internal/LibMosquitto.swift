import CMosquitto
import Glibc
import Synchronization

/// libmosquitto, one thin wrapper per C function GripMQTT calls (named in each doc comment). The only file that
/// imports `CMosquitto`.
///
/// Threads: `mosquitto_loop_start` runs the network loop, keep-alives and reconnects (with the delays set by
/// `mosquitto_reconnect_delay_set`) on libmosquitto's own thread, and calls the callbacks there. Debian's library is
/// built with threading, so `mosquitto_publish`, `mosquitto_subscribe` and `mosquitto_disconnect` may be called
/// from any other thread meanwhile: in threaded mode they queue the packet under libmosquitto's locks and wake its
/// loop through an internal socket pair, never writing to the broker's socket themselves, so a slow broker never
/// blocks the caller.
final class LibMosquitto: @unchecked Sendable {
    // SAFETY: `handle` is created in `init` and destroyed in `deinit`; every call in between goes through
    // libmosquitto's own locks (threaded build, see above), and `deinit` runs after `stopLoop()` joined the loop
    // thread, so no callback runs while it is destroyed.
    private let handle: OpaquePointer
    /// The callbacks' target; libmosquitto holds an unretained pointer to it, kept alive by this object.
    private let events: Events

    /// What the loop thread reports.
    final class Events: Sendable {
        let connected: @Sendable (Int32) -> Void
        let disconnected: @Sendable (Int32) -> Void
        let published: @Sendable (Int32) -> Void
        let message: @Sendable (String, [UInt8], Bool) -> Void
        /// libmosquitto's own error lines (`MOSQ_LOG_ERR`): the only place it says why a TLS handshake failed.
        let error: @Sendable (String) -> Void

        init(
            connected: @escaping @Sendable (Int32) -> Void, disconnected: @escaping @Sendable (Int32) -> Void,
            published: @escaping @Sendable (Int32) -> Void, message: @escaping @Sendable (String, [UInt8], Bool) -> Void,
            error: @escaping @Sendable (String) -> Void
        ) {
            self.connected = connected
            self.disconnected = disconnected
            self.published = published
            self.message = message
            self.error = error
        }
    }

    private static let initialised: Bool = {
        _ = mosquitto_lib_init()
        return true
    }()

    /// `mosquitto_lib_init` (once per process), `mosquitto_new` (clean session) and the callback setters.
    /// - Returns: nil when libmosquitto cannot allocate a client.
    init?(clientID: String, events: Events) {
        _ = Self.initialised
        self.events = events
        let context = Unmanaged.passUnretained(events).toOpaque()
        guard let handle = mosquitto_new(clientID, true, context) else { return nil }
        self.handle = handle
        _ = mosquitto_int_option(handle, mosq_opt_t(rawValue: UInt32(CMOSQ_OPT_PROTOCOL_VERSION)), CMOSQ_PROTOCOL_V311)
        mosquitto_connect_callback_set(handle) { _, context, code in
            LibMosquitto.events(context)?.connected(code)
        }
        mosquitto_disconnect_callback_set(handle) { _, context, code in
            LibMosquitto.events(context)?.disconnected(code)
        }
        mosquitto_publish_callback_set(handle) { _, context, mid in
            LibMosquitto.events(context)?.published(mid)
        }
        mosquitto_log_callback_set(handle) { _, context, level, text in
            // Errors only: the debug and notice levels would build a string for every packet.
            guard level == CMOSQ_LOG_ERR, let text, let events = LibMosquitto.events(context) else { return }
            events.error(String(cString: text))
        }
        mosquitto_message_callback_set(handle) { _, context, message in
            guard let message, let events = LibMosquitto.events(context) else { return }
            let topic = message.pointee.topic.map { String(cString: $0) } ?? ""
            let count = Int(message.pointee.payloadlen)
            var payload: [UInt8] = []
            if count > 0, let bytes = message.pointee.payload {
                payload = Array(UnsafeRawBufferPointer(start: bytes, count: count))
            }
            events.message(topic, payload, message.pointee.retain)
        }
    }

    private static func events(_ context: UnsafeMutableRawPointer?) -> Events? {
        context.map { Unmanaged<Events>.fromOpaque($0).takeUnretainedValue() }
    }

    deinit {
        mosquitto_destroy(handle)
    }

    /// `mosquitto_will_set`: what the broker publishes for us when the connection drops without a DISCONNECT.
    func setWill(topic: String, payload: String, retain: Bool) -> Int32 {
        let bytes = Array(payload.utf8)
        return mosquitto_will_set(handle, topic, Int32(bytes.count), bytes, 1, retain)
    }

    /// `mosquitto_username_pw_set`.
    func setCredentials(username: String, password: String?) -> Int32 {
        mosquitto_username_pw_set(handle, username, password)
    }

    /// `mosquitto_tls_set`: a CA file, or the system's trust store (`capath`) when nil.
    func setTLS(caFile: String?) -> Int32 {
        mosquitto_tls_set(handle, caFile, caFile == nil ? "/etc/ssl/certs" : nil, nil, nil, nil)
    }

    /// `mosquitto_reconnect_delay_set`, exponential.
    func setReconnectDelay(minimumSeconds: UInt32, maximumSeconds: UInt32) -> Int32 {
        mosquitto_reconnect_delay_set(handle, minimumSeconds, maximumSeconds, true)
    }

    /// `mosquitto_connect_async`: resolves the host and starts connecting; the loop thread finishes (and retries).
    func connectAsync(host: String, port: Int32, keepAliveSeconds: Int32) -> Int32 {
        mosquitto_connect_async(handle, host, port, keepAliveSeconds)
    }

    /// `mosquitto_loop_start`: the network loop's thread.
    func startLoop() -> Int32 { mosquitto_loop_start(handle) }

    /// `mosquitto_loop_stop`: joins the loop thread (`force`: without waiting for a disconnect first).
    func stopLoop(force: Bool) -> Int32 { mosquitto_loop_stop(handle, force) }

    /// `mosquitto_publish`: queues one message. - Returns: the error code and the message id.
    func publish(topic: String, payload: [UInt8], qos: Int32, retain: Bool) -> (code: Int32, mid: Int32) {
        var mid: Int32 = 0
        let code = payload.withUnsafeBytes { bytes in
            mosquitto_publish(handle, &mid, topic, Int32(bytes.count), bytes.baseAddress, qos, retain)
        }
        return (code, mid)
    }

    /// `mosquitto_subscribe`.
    func subscribe(_ pattern: String, qos: Int32) -> Int32 {
        mosquitto_subscribe(handle, nil, pattern, qos)
    }

    /// `mosquitto_disconnect`: a clean DISCONNECT (the broker then does not publish the will).
    func disconnect() -> Int32 { mosquitto_disconnect(handle) }

    /// `mosquitto_strerror`.
    ///
    /// libmosquitto 2.0.11 (Debian 12) has no text for some of its own codes: a broker that accepts the TCP connection
    /// and never answers CONNECT ends in `MOSQ_ERR_KEEPALIVE` (19), whose text is "Unknown error.".
    static func describe(_ code: Int32) -> String {
        if code == 19 { return "the broker did not answer within the keepalive interval (no CONNACK, or silence after it)" }
        let text = String(cString: mosquitto_strerror(code))
        return text == "Unknown error." ? "libmosquitto error \(code)" : text
    }

    /// `mosquitto_connack_string`: the broker's reason for refusing a connection.
    static func describeRefusal(_ code: Int32) -> String { String(cString: mosquitto_connack_string(code)) }

    static let success = CMOSQ_ERR_SUCCESS
    static let noConnection = CMOSQ_ERR_NO_CONN
}
