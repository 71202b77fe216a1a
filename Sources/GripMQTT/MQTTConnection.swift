import Glibc
import Logging
import Synchronization

/// The broker side: one libmosquitto client, a bounded outgoing queue in front of it, and the connection's state.
///
/// Nothing here blocks its caller. ``offer(_:)`` appends to a queue of at most ``capacity`` messages (a state replaces
/// its own older, still queued value; past the bound a message is dropped and counted) and ``pump()`` hands messages
/// to libmosquitto only while connected and while fewer than ``inFlightLimit`` are unsent, so libmosquitto's own
/// queue, which has no bound, never grows with a slow broker. Connecting, keep-alives and reconnects (after 1 s,
/// then 4, 9, 16 … s, at most 60 s: libmosquitto's exponential backoff) run on libmosquitto's thread; its callbacks
/// only update the state and wake the bridge thread, which is the only caller of ``pump()``, so no lock is ever
/// taken inside a libmosquitto callback that a publish could wait on.
final class MQTTConnection: Sendable {
    /// Messages queued at most (a few seconds of states and events; the broker being away longer costs drops).
    static let capacity = 256
    /// Messages handed to libmosquitto and not yet written (QoS 0) or acknowledged (QoS 1) at most.
    static let inFlightLimit = 32

    private struct State {
        var queue: [MQTTMessage] = []
        var inFlight = 0
        var counters = MQTTCounters()
        /// Set by the loop thread on CONNACK; the bridge then sends availability, discovery and the states.
        var justConnected = false
        /// The last refusal code logged, so a broker that keeps refusing logs once.
        var loggedRefusal: Int32?
        /// The last failure before CONNACK logged (a TLS handshake that fails, a connection reset), logged once.
        var loggedFailure: Int32?
        /// libmosquitto's error lines logged since the last CONNACK, so a failure repeated by every retry logs once.
        var loggedLibraryErrors: Set<String> = []
    }

    /// Distinct library error lines logged between two connections at most (a bound on the set above).
    static let libraryErrorsLogged = 8

    let settings: MQTTSettings
    private let logger: Logger
    private let state = Mutex(State())
    private let client = Mutex<LibMosquitto?>(nil)
    private let wake: @Sendable () -> Void
    private let received: @Sendable (String, [UInt8], Bool) -> Void

    var availabilityTopic: String { settings.baseTopic + "/availability" }

    /// - Parameters:
    ///   - wake: wakes the bridge thread (called on libmosquitto's thread; must not block).
    ///   - received: a message on a subscribed topic, and whether the broker kept it (retained) rather than passing
    ///     it on as sent (called on libmosquitto's thread; must not block).
    init(
        settings: MQTTSettings, logger: Logger, wake: @escaping @Sendable () -> Void,
        received: @escaping @Sendable (String, [UInt8], Bool) -> Void
    ) {
        self.settings = settings
        self.logger = logger
        self.wake = wake
        self.received = received
    }

    var counters: MQTTCounters {
        state.withLock { state in
            var counters = state.counters
            counters.queued = state.queue.count
            return counters
        }
    }

    /// Bridge thread, once: creates the client, sets the last will and starts connecting on libmosquitto's thread.
    /// - Returns: false when libmosquitto cannot create a client or refuses a setting (logged).
    func start() -> Bool {
        let events = LibMosquitto.Events(
            connected: { [weak self] code in self?.connected(code) },
            disconnected: { [weak self] code in self?.disconnected(code) },
            published: { [weak self] _ in self?.published() },
            message: { [received] topic, payload, retained in received(topic, payload, retained) },
            error: { [weak self] text in self?.libraryError(text) })
        guard let mosquitto = LibMosquitto(clientID: settings.clientID, events: events) else {
            logger.error("MQTT client could not be created", metadata: ["mqtt.clientID": "\(settings.clientID)"])
            return false
        }
        client.withLock { $0 = mosquitto }
        var code = mosquitto.setWill(topic: availabilityTopic, payload: "offline", retain: true)
        if code == LibMosquitto.success, let username = settings.username {
            code = mosquitto.setCredentials(username: username, password: settings.password)
        }
        if code == LibMosquitto.success, settings.tls { code = mosquitto.setTLS(caFile: settings.caFile) }
        if code == LibMosquitto.success { code = mosquitto.setReconnectDelay(minimumSeconds: 1, maximumSeconds: 60) }
        guard code == LibMosquitto.success else {
            logger.error("MQTT client settings refused", metadata: ["mqtt.error": "\(LibMosquitto.describe(code))"])
            return false
        }
        logger.info(
            "MQTT connecting",
            metadata: [
                "mqtt.host": "\(settings.host)", "mqtt.port": "\(settings.port)", "mqtt.tls": "\(settings.tls)",
                "mqtt.baseTopic": "\(settings.baseTopic)",
            ])
        guard mosquitto.startLoop() == LibMosquitto.success else {
            logger.error("MQTT network thread could not start")
            return false
        }
        connectIfDue(now: 0)
        return true
    }

    /// The first connection, until one is under way. libmosquitto's thread reconnects once a connection has been
    /// started, but a first `mosquitto_connect_async` that fails (the broker down when griptrackd starts) leaves it
    /// waiting for another call, so the bridge thread retries, after 1 s doubling to at most 60 s.
    private struct FirstConnect {
        var started = false
        var retryAt: Int64 = 0
        var delayMicros: Int64 = 1_000_000
        var logged = false
    }

    private let firstConnect = Mutex(FirstConnect())

    /// Bridge thread: tries the first connection if it is due.
    /// - Parameter now: CLOCK_MONOTONIC, microseconds.
    /// - Returns: when to try again (nil: a connection is under way; libmosquitto's thread has it from now on).
    @discardableResult
    func connectIfDue(now: Int64) -> Int64? {
        guard let mosquitto = client.withLock({ $0 }) else { return nil }
        var attempt = firstConnect.withLock { $0 }
        guard !attempt.started else { return nil }
        guard now >= attempt.retryAt else { return attempt.retryAt }
        let code = mosquitto.connectAsync(host: settings.host, port: Int32(settings.port), keepAliveSeconds: 30)
        if code == LibMosquitto.success {
            attempt.started = true
        } else {
            if !attempt.logged {
                logger.info("MQTT broker unreachable; retrying", metadata: ["mqtt.error": "\(LibMosquitto.describe(code))"])
                attempt.logged = true
            }
            attempt.retryAt = now + attempt.delayMicros
            attempt.delayMicros = min(attempt.delayMicros * 2, 60_000_000)
        }
        firstConnect.withLock { $0 = attempt }
        return attempt.started ? nil : attempt.retryAt
    }

    /// Any thread: queues a message; never blocks.
    /// - Parameter first: goes before everything queued (a new session's `online`, so that states queued while
    ///   the broker was away do not arrive for an entity Home Assistant still shows unavailable).
    /// - Returns: false when the queue was full and the message was dropped.
    @discardableResult
    func offer(_ message: MQTTMessage, first: Bool = false) -> Bool {
        state.withLock { state in
            if message.coalesces, let index = state.queue.firstIndex(where: { $0.topic == message.topic && $0.coalesces }) {
                state.counters.superseded += 1
                if !first {
                    state.queue[index] = message
                    return true
                }
                state.queue.remove(at: index)
            }
            if first {
                // `online` must go out: the newest queued message makes room instead.
                if state.queue.count >= Self.capacity {
                    state.queue.removeLast()
                    state.counters.dropped += 1
                }
                state.queue.insert(message, at: 0)
                return true
            }
            guard state.queue.count < Self.capacity else {
                state.counters.dropped += 1
                return false
            }
            state.queue.append(message)
            return true
        }
    }

    /// Bridge thread: hands queued messages to libmosquitto while connected and under the in-flight limit.
    func pump() {
        guard let mosquitto = client.withLock({ $0 }) else { return }
        while true {
            let next: MQTTMessage? = state.withLock { state in
                guard state.counters.connected, state.inFlight < Self.inFlightLimit, !state.queue.isEmpty else {
                    return nil
                }
                state.inFlight += 1
                return state.queue.removeFirst()
            }
            guard let next else { return }
            let code = mosquitto.publish(topic: next.topic, payload: next.payload, qos: next.qos, retain: next.retain)
            state.withLock { state in
                if code.code == LibMosquitto.success {
                    state.counters.published += 1
                } else {
                    // Lost the connection meanwhile: the message goes back to the front, the disconnect callback
                    // has cleared `connected`, and the next CONNACK sends it.
                    state.inFlight -= 1
                    state.queue.insert(next, at: 0)
                    if state.queue.count > Self.capacity {
                        state.queue.removeLast()
                        state.counters.dropped += 1
                    }
                }
            }
            if code.code != LibMosquitto.success { return }
        }
    }

    /// Bridge thread: whether a CONNACK arrived since the last call (then the bridge re-sends what a new session
    /// needs).
    func takeJustConnected() -> Bool {
        state.withLock { state in
            defer { state.justConnected = false }
            return state.justConnected
        }
    }

    /// Bridge thread: subscribes to a command topic (QoS 1).
    func subscribe(_ topic: String) {
        guard let mosquitto = client.withLock({ $0 }) else { return }
        let code = mosquitto.subscribe(topic, qos: 1)
        if code != LibMosquitto.success {
            logger.info("MQTT subscribe failed", metadata: ["mqtt.topic": "\(topic)", "mqtt.error": "\(LibMosquitto.describe(code))"])
        }
    }

    /// Bridge thread, at shutdown: says `offline` (retained), waits up to `waitMillis` for the queue to go out, then
    /// disconnects cleanly and joins libmosquitto's thread.
    func stop(waitMillis: Int = 1000) {
        guard let mosquitto = client.withLock({ $0 }) else { return }
        offer(MQTTMessage(topic: availabilityTopic, payload: "offline", retain: true, qos: 1, coalesces: true))
        var waited = 0
        while waited < waitMillis {
            pump()
            let done = state.withLock { !$0.counters.connected || ($0.queue.isEmpty && $0.inFlight == 0) }
            if done { break }
            usleep(10_000)
            waited += 10
        }
        _ = mosquitto.disconnect()
        _ = mosquitto.stopLoop(force: false)
        client.withLock { $0 = nil }
        logger.info("MQTT stopped")
    }

    /// Tests: drops the connection without DISCONNECT, so the broker publishes the last will (as for a crash).
    func abandon() {
        guard let mosquitto = client.withLock({ $0 }) else { return }
        _ = mosquitto.stopLoop(force: true)
        client.withLock { $0 = nil }
    }

    // MARK: libmosquitto's thread

    private func connected(_ code: Int32) {
        let log: Bool = state.withLock { state in
            guard code == 0 else {
                defer { state.loggedRefusal = code }
                return state.loggedRefusal != code
            }
            state.counters.connected = true
            state.counters.connects += 1
            state.justConnected = true
            state.inFlight = 0
            state.loggedRefusal = nil
            state.loggedFailure = nil
            state.loggedLibraryErrors = []
            return true
        }
        if code == 0 {
            logger.info("MQTT connected", metadata: ["mqtt.host": "\(settings.host)", "mqtt.port": "\(settings.port)"])
            wake()
        } else if log {
            logger.info("MQTT broker refused the connection", metadata: ["mqtt.reason": "\(LibMosquitto.describeRefusal(code))"])
        }
    }

    private func disconnected(_ code: Int32) {
        let (wasConnected, firstFailure) = state.withLock { state in
            defer {
                state.counters.connected = false
                state.inFlight = 0
                if code != 0 && !state.counters.connected { state.loggedFailure = code }
            }
            return (state.counters.connected, !state.counters.connected && state.loggedFailure != code)
        }
        // Code 0 is our own DISCONNECT at shutdown, logged there.
        guard code != 0 else { return }
        if wasConnected {
            logger.info("MQTT connection lost; reconnecting", metadata: ["mqtt.error": "\(LibMosquitto.describe(code))"])
        } else if firstFailure {
            // Before CONNACK: with mqtts, most often a certificate the ca_file does not vouch for.
            logger.info("MQTT connection failed; retrying", metadata: [
                "mqtt.error": "\(LibMosquitto.describe(code))", "mqtt.tls": "\(settings.tls)"])
        }
    }

    /// libmosquitto's reason for a failure it reports no other way (a TLS handshake refused before CONNACK).
    private func libraryError(_ text: String) {
        let (log, connected) = state.withLock { state in
            guard !state.loggedLibraryErrors.contains(text),
                state.loggedLibraryErrors.count < Self.libraryErrorsLogged
            else { return (false, state.counters.connected) }
            state.loggedLibraryErrors.insert(text)
            return (true, state.counters.connected)
        }
        guard log else { return }
        if connected {
            logger.info("MQTT client error", metadata: ["mqtt.detail": "\(text)"])
        } else {
            logger.info("MQTT connection failed; retrying", metadata: [
                "mqtt.detail": "\(text)", "mqtt.tls": "\(settings.tls)"])
        }
    }

    private func published() {
        let wakes = state.withLock { state in
            state.inFlight = max(0, state.inFlight - 1)
            return !state.queue.isEmpty
        }
        if wakes { wake() }
    }
}
