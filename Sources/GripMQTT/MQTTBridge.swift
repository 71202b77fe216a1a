import Foundation
import Glibc
import GripProtocol
import GripSystem
import Logging
import Synchronization

/// griptrackd on MQTT: a client of the daemon's own socket (docs/protocol.md) on one side, an ``MQTTConnection``
/// on the other, with Home Assistant discovery (docs/home-assistant.md).
///
/// Why a socket client: the daemon's live stream already goes to watchers, each bounded, written by the consumer
/// without ever blocking it (docs/design.md, "Hot path"). The bridge is one more watcher (at the slow pace), so the
/// consumer and the recorder do for it exactly what they do for a dashboard, and a stuck bridge is dropped like a
/// stuck dashboard. Commands go through the same requests (`RECORD`, `STOP`, `TARE`) and the same peer-credential
/// authorisation (the daemon's own user has the socket's record role) as `griptrack record` and `tare`, so the
/// free plan's refusal reaches the bridge as the socket's `refused` reply, which it logs.
///
/// One thread (``run()``) polls the daemon's socket and a wake pipe (libmosquitto's callbacks, ``stop()``);
/// libmosquitto's thread does the network I/O. Nothing the broker does can block the daemon: it can only fill the
/// bridge's bounded queue, whose drops are counted (``counters``).
package final class MQTTBridge: Sendable {
    /// Live force goes out at most this often (Home Assistant records every state change; 2 a second is a display's
    /// pace, not a recorder's): the slow WATCH pace's interval, at which the daemon sends the bridge its samples.
    static let forceIntervalMicros: Int64 = WatchPace.slow.samplesIntervalMicros!
    /// STATUS is asked for this often (battery, stored recordings, plan), and after every RECORDER report.
    static let statusIntervalMicros: Int64 = 30_000_000
    /// A lost daemon connection (the socket not yet there, the daemon restarting) is retried this often.
    static let daemonRetryMicros: Int64 = 1_000_000

    let settings: MQTTSettings
    let socketPath: String
    let discovery: HomeAssistantDiscovery
    private let logger: Logger
    private let wake: WakePipe
    private let connection: MQTTConnection
    private let inbox = CommandInbox()
    private let stopping = Atomic<Bool>(false)

    enum Command: String, Sendable {
        case tare, record, stop
    }

    /// - Parameters:
    ///   - settings: the broker and the names (`[mqtt]`).
    ///   - socketPath: griptrackd's socket.
    ///   - release: griptrack's release (the Home Assistant device's `sw_version`).
    ///   - model: the device profile's name (the Home Assistant device's `model`).
    ///   - logger: one line per state change of either connection, and per command.
    /// - Returns: nil when no wake pipe can be created.
    package init?(settings: MQTTSettings, socketPath: String, release: String, model: String, logger: Logger) {
        guard let wake = try? WakePipe(purpose: "MQTT bridge wake-up") else { return nil }
        self.settings = settings
        self.socketPath = socketPath
        self.logger = logger
        self.wake = wake
        discovery = HomeAssistantDiscovery(settings: settings, release: release, model: model)
        let inbox = self.inbox
        let tare = discovery.topic(.tareCommand)
        let record = discovery.topic(.recordingCommand)
        let allowCommands = settings.allowCommands
        let refusals = LogThrottle(seconds: 60)
        connection = MQTTConnection(
            settings: settings, logger: logger, wake: { wake.signal() },
            received: { topic, payload, retained in
                let text = String(decoding: payload, as: UTF8.self)
                let command: Command? = switch (topic, text) {
                case (tare, "PRESS"): .tare
                case (record, "ON"): .record
                case (record, "OFF"): .stop
                default: nil
                }
                // A retained command is one someone published with the retain flag: the broker hands it to every
                // new session, so obeying it would start a recording at every reconnect.
                let refusal: String? =
                    if !allowCommands { "allow_commands is off" }
                    else if command == nil { "unknown payload \(text.quotedForLog(limit: 32))" }
                    else if retained { "a retained command (published with the retain flag) is not obeyed" }
                    else { nil }
                guard let command, refusal == nil else {
                    inbox.refused.add(1, ordering: .relaxed)
                    if let unlogged = refusals.admit("\(topic) \(refusal ?? "")") {
                        logger.info(
                            "MQTT command refused",
                            metadata: [
                                "mqtt.topic": "\(topic.quotedForLog())", "mqtt.reason": "\(refusal ?? "")",
                                "refusals.unlogged": "\(unlogged)",
                            ])
                    }
                    return
                }
                inbox.queued.withLock { $0.append(command) }
                wake.signal()
            })
    }

    deinit { wake.close() }

    /// Command outcomes in the log, once per outcome and minute (``GripSystem/LogThrottle``).
    let commandLog = LogThrottle(seconds: 60)

    /// Bridge thread: a command the daemon refused.
    func countRefused() { inbox.refused.add(1, ordering: .relaxed) }

    /// The broker side's counters (for metrics).
    package var counters: MQTTCounters {
        var counters = connection.counters
        counters.commandsRefused = inbox.refused.load(ordering: .relaxed)
        return counters
    }

    /// Any thread: makes ``run()`` say `offline`, disconnect and return.
    package func stop() {
        stopping.store(true, ordering: .releasing)
        wake.signal()
    }

    /// Runs the bridge on the calling thread until ``stop()``.
    /// - Important: Blocks; call it on a thread of its own (griptrackd's `gt-mqtt`).
    package func run() {
        guard connection.start() else { return }
        if settings.allowCommands {
            logger.info("MQTT commands on", metadata: ["mqtt.topics": "\(discovery.topic(.tareCommand)), \(discovery.topic(.recordingCommand))"])
        }
        var loop = BridgeLoop(bridge: self, connection: connection, logger: logger)
        while !stopping.load(ordering: .acquiring) {
            loop.step(wakeDescriptor: wake.readDescriptor)
            wake.drain()
            loop.handle(inbox.queued.withLock { queued in
                defer { queued.removeAll() }
                return queued
            })
            if connection.takeJustConnected() { loop.startSession() }
            loop.publishDue()
            connection.pump()
        }
        loop.close()
        connection.stop()
    }
}

/// Commands from libmosquitto's thread to the bridge thread, and the count of refused ones.
private final class CommandInbox: Sendable {
    let queued = Mutex<[MQTTBridge.Command]>([])
    let refused = Atomic<Int>(0)
}

/// The bridge thread's state: the daemon connection, the latest values and the commands awaiting replies.
private struct BridgeLoop {
    let bridge: MQTTBridge
    let connection: MQTTConnection
    let logger: Logger

    var daemon: Int32 = -1
    var daemonRetryAt: Int64 = 0
    var loggedDaemonTrouble = false
    var buffer: [UInt8] = []
    /// What one read(2) fills, kept from one wake-up to the next (a SAMPLES line arrives 25 times a second).
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    /// The last payload of every retained state topic, re-sent to a new broker session.
    var states: [String: String] = [:]
    var pendingForce: Float?
    var lastForceAt: Int64 = .min / 2
    var lastStatusAt: Int64 = .min / 2
    /// The command whose reply is awaited, and since when: one at a time, since replies come from different
    /// threads of the daemon (RECORD and STOP from the recorder, TARE from the socket thread) and an ERROR does not
    /// say which request it answers.
    var awaiting: (command: MQTTBridge.Command, since: Int64)?
    var waiting: [MQTTBridge.Command] = []
    /// A reply that has not come by then is given up on (the next command may go).
    static let replyTimeoutMicros: Int64 = 10_000_000

    init(bridge: MQTTBridge, connection: MQTTConnection, logger: Logger) {
        self.bridge = bridge
        self.connection = connection
        self.logger = logger
        buffer.reserveCapacity(1 << 16)
    }

    var discovery: HomeAssistantDiscovery { bridge.discovery }

    static func nowMicros() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1_000
    }

    // MARK: Waiting

    /// Connects to the daemon if due, then sleeps until the daemon writes, something wakes the bridge, or a
    /// timer (force throttle, STATUS refresh, reconnect) is due.
    mutating func step(wakeDescriptor: Int32) {
        let now = Self.nowMicros()
        if daemon < 0 && now >= daemonRetryAt { connectDaemon(now: now) }
        var due = daemon < 0 ? daemonRetryAt : lastStatusAt + MQTTBridge.statusIntervalMicros
        if pendingForce != nil { due = min(due, lastForceAt + MQTTBridge.forceIntervalMicros) }
        if let retry = connection.connectIfDue(now: now) { due = min(due, retry) }
        let timeout = Int32(clamping: max(0, (due - now + 999) / 1000))
        var fds = [
            pollfd(fd: wakeDescriptor, events: Int16(POLLIN), revents: 0),
            pollfd(fd: daemon, events: Int16(POLLIN), revents: 0),
        ]
        let ready = SystemCall.poll(&fds, timeoutMilliseconds: timeout)
        if ready > 0 && daemon >= 0 && fds[1].revents != 0 { readDaemon() }
    }

    mutating func close() {
        if daemon >= 0 { Glibc.close(daemon) }
        daemon = -1
    }

    // MARK: Daemon side

    private mutating func connectDaemon(now: Int64) {
        daemonRetryAt = now + MQTTBridge.daemonRetryMicros
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let path = Array(bridge.socketPath.utf8)
        guard path.count < MemoryLayout.size(ofValue: address.sun_path) else {
            Glibc.close(descriptor)
            return
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: path)
            raw[path.count] = 0
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else {
            let code = errno
            Glibc.close(descriptor)
            if !loggedDaemonTrouble {
                loggedDaemonTrouble = true
                logger.info(
                    "MQTT bridge cannot reach griptrackd; retrying",
                    metadata: ["socket.path": "\(bridge.socketPath)", "error.errno": "\(code)"])
            }
            return
        }
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        daemon = descriptor
        buffer.removeAll(keepingCapacity: true)
        awaiting = nil
        if loggedDaemonTrouble { logger.info("MQTT bridge reached griptrackd", metadata: ["socket.path": "\(bridge.socketPath)"]) }
        loggedDaemonTrouble = false
        // The slow pace: the daemon writes to the bridge twice a second instead of 25 times, the force's own rate.
        send(.watch(enable: true, pace: .slow))
        requestStatus()
    }

    private mutating func send(_ request: DaemonRequest) {
        guard daemon >= 0 else { return }
        let bytes = Array(request.line.utf8)
        let written = bytes.withUnsafeBytes { write(daemon, $0.baseAddress, $0.count) }
        if written != bytes.count {
            // The daemon reads requests at once; a full socket means it is stuck or gone: start over.
            logger.info("MQTT bridge lost griptrackd", metadata: ["error.errno": "\(errno)"])
            close()
        }
    }

    private mutating func requestStatus() {
        lastStatusAt = Self.nowMicros()
        send(.status)
    }

    private mutating func readDaemon() {
        while daemon >= 0 {
            let descriptor = daemon
            let count = chunk.withUnsafeMutableBytes { free in
                SystemCall.retryingOnInterrupt { read(descriptor, free.baseAddress, free.count) }
            }
            if count > 0 {
                buffer.append(contentsOf: chunk[0..<count])
                if count < chunk.count { break }
                continue
            }
            if count < 0 && errno == EAGAIN { break }
            // EOF or an error: the daemon closed us (shutdown, or it dropped a watcher that fell behind).
            logger.info("MQTT bridge lost griptrackd; reconnecting", metadata: ["socket.path": "\(bridge.socketPath)"])
            close()
            if let awaiting { logger.info("MQTT command not answered", metadata: ["mqtt.command": "\(awaiting.command)"]) }
            awaiting = nil
            return
        }
        var start = 0
        while let newline = buffer[start...].firstIndex(of: UInt8(ascii: "\n")) {
            let bytes = buffer[start..<newline]
            start = newline + 1
            // SAMPLES lines (twice a second at the slow pace) are read as bytes; only the rest is decoded.
            if bytes.starts(with: Self.samplesPrefix) {
                if let force = SamplesLine.lastForce(in: bytes) { pendingForce = force }
                continue
            }
            handle(line: String(decoding: bytes, as: UTF8.self))
        }
        buffer.removeFirst(start)
    }

    private static let samplesPrefix = Array("{\"class\":\"SAMPLES\"".utf8)

    private mutating func handle(line: String) {
        guard let message = DaemonMessage.parse(line) else { return }
        switch message {
        case .effort(let effort) where effort.event == "end":
            effortEnded(effort)
        case .device(let report):
            switch report.event {
            case "connected": setState(.connected, "ON")
            case "disconnected": setState(.connected, "OFF")
            case "battery": if let millivolts = report.batteryMv { setBattery(millivolts) }
            case "state": if let state = report.state { setState(.connected, Self.linkUp(state) ? "ON" : "OFF") }
            default: break
            }
        case .recorder, .recording:
            requestStatus()
        case .status(let status):
            if let device = status.device {
                if let state = device.state { setState(.connected, Self.linkUp(state) ? "ON" : "OFF") }
                if let millivolts = device.batteryMv { setBattery(millivolts) }
            }
            if let recorder = status.recorder {
                setState(.recording, recorder.state == "recording" ? "ON" : "OFF")
            }
            if let access = status.access, let stored = access.stored, let limit = access.limit {
                setState(.plan, access.pro ? "pro" : "free")
                setState(
                    .recordings,
                    JSONText.object([
                        ("stored", .integer(stored)), ("limit", .integer(limit)),
                        ("pro", .bool(access.pro)), ("access", .string(access.reason)),
                    ]).rendered)
            }
        case .record(let record):
            reply(refusal: record.event == "refused" ? record.reason ?? "" : nil)
        case .stop, .tare:
            reply(refusal: nil)
        case .error(let problem):
            reply(refusal: problem.message)
        default:
            break
        }
    }

    /// Device states in which the link is up (replay: `connected`; radio: `connected`, `streaming`, `stopped`).
    private static func linkUp(_ state: String) -> Bool {
        ["connected", "streaming", "stopped"].contains(state)
    }

    private mutating func effortEnded(_ effort: DaemonMessage.EffortReport) {
        // A completed effort only: one cut by the stream's end or a lost link is not a rep to announce.
        guard effort.open != true, let peak = effort.peakKg, let mean = effort.meanKg, let end = effort.end else { return }
        let start = effort.start
        var fields: [(String, JSONText)] = [
            ("peak_kg", .kilograms(peak)), ("mean_kg", .kilograms(mean)),
            ("duration_s", .micro(end - start)),
        ]
        if let rfd = effort.rfdKgS { fields.append(("rfd_kg_s", .micro(rfd))) }
        if let timeToPeak = effort.timeToPeak { fields.append(("time_to_peak_s", .micro(timeToPeak))) }
        if let impulse = effort.impulseKgS { fields.append(("impulse_kg_s", .micro(impulse))) }
        fields += [("start_s", .micro(start)), ("end_s", .micro(end))]
        setState(.effort, JSONText.object(fields).rendered, always: true)
        let event = JSONText.object([("event_type", .string("effort"))] + fields).rendered
        connection.offer(
            MQTTMessage(topic: discovery.topic(.effortEvent), payload: event, retain: false, qos: 1, coalesces: false))
    }

    private mutating func setBattery(_ millivolts: Int) {
        setState(.battery, JSONText.micro(Double(millivolts) / 1000).rendered)
    }

    /// A retained state: sent when it changed (or `always`), and kept for the next broker session.
    private mutating func setState(_ topic: HomeAssistantDiscovery.Topic, _ payload: String, always: Bool = false) {
        let name = discovery.topic(topic)
        guard always || states[name] != payload else { return }
        states[name] = payload
        connection.offer(MQTTMessage(topic: name, payload: payload, retain: true, qos: 0, coalesces: true))
    }

    /// The reply to the command in flight: `refusal` says why it was refused (RECORD refused, ERROR), nil when done.
    private mutating func reply(refusal: String?) {
        guard let command = awaiting?.command else { return }
        awaiting = nil
        if let refusal {
            bridge.countRefused()
            if let unlogged = bridge.commandLog.admit("\(command) refused \(refusal)") {
                logger.info(
                    "MQTT command refused",
                    metadata: ["mqtt.command": "\(command)", "mqtt.reason": "\(refusal)", "commands.unlogged": "\(unlogged)"])
            }
        } else {
            // Once per command and minute, with a count: a script that sends thousands costs a line a minute.
            if let unlogged = bridge.commandLog.admit("\(command) done") {
                logger.info("MQTT command done", metadata: ["mqtt.command": "\(command)", "commands.unlogged": "\(unlogged)"])
            }
        }
        requestStatus()
        sendNextCommand()
    }

    // MARK: MQTT side

    /// Commands from Home Assistant, as socket requests, one at a time.
    mutating func handle(_ commands: [MQTTBridge.Command]) {
        waiting += commands
        if let awaiting, Self.nowMicros() >= awaiting.since + Self.replyTimeoutMicros {
            logger.info("MQTT command not answered", metadata: ["mqtt.command": "\(awaiting.command)"])
            self.awaiting = nil
        }
        sendNextCommand()
    }

    private mutating func sendNextCommand() {
        while awaiting == nil, !waiting.isEmpty {
            let command = waiting.removeFirst()
            guard daemon >= 0 else {
                bridge.countRefused()
                logger.info("MQTT command refused", metadata: ["mqtt.command": "\(command)", "mqtt.reason": "griptrackd not reachable"])
                continue
            }
            switch command {
            case .tare: send(.tare)
            case .record: send(.record(hand: nil, label: nil, save: true))
            case .stop: send(.stop)
            }
            awaiting = (command, Self.nowMicros())
        }
    }

    /// A new broker session: `online`, the discovery configs, every known state, and the command subscriptions.
    mutating func startSession() {
        connection.offer(
            MQTTMessage(topic: discovery.topic(.availability), payload: "online", retain: true, qos: 1, coalesces: true),
            first: true)
        for message in discovery.configMessages() { connection.offer(message) }
        for (topic, payload) in states.sorted(by: { $0.key < $1.key }) {
            connection.offer(MQTTMessage(topic: topic, payload: payload, retain: true, qos: 0, coalesces: true))
        }
        // Subscribed without allow_commands too: a press is then refused with a logged reason, not ignored silently.
        connection.subscribe(discovery.topic(.tareCommand))
        connection.subscribe(discovery.topic(.recordingCommand))
    }

    /// The timers ``step(wakeDescriptor:)`` sleeps for: the periodic STATUS, and the live force at most every
    /// ``MQTTBridge/forceIntervalMicros``. Each must move its own deadline, or the next poll returns at once.
    mutating func publishDue() {
        let now = Self.nowMicros()
        if daemon >= 0 && now >= lastStatusAt + MQTTBridge.statusIntervalMicros { requestStatus() }
        guard let force = pendingForce else { return }
        guard now >= lastForceAt + MQTTBridge.forceIntervalMicros else { return }
        pendingForce = nil
        lastForceAt = now
        connection.offer(
            MQTTMessage(
                topic: discovery.topic(.force), payload: force.description, retain: false, qos: 0, coalesces: true))
    }
}
