import GripBlueZ
import GripWire
import Logging

/// What the control task reacts to, in arrival order.
enum ControlInput: Sendable {
    /// The supervisor is looking for bluetoothd, the adapter or the device; `problem` says why the last attempt
    /// failed (nil while simply searching).
    case searching(problem: String?)
    /// Discovery found the device.
    case found(address: String, name: String?)
    /// A connection to the device exists (writes go through it) / has ended.
    case attached(DeviceConnection)
    case detached
    /// A progress report of the connection.
    case link(DeviceConnection.Event)
    /// A request from the socket thread.
    case request(DeviceRequests.Request)
    /// Periodic while streaming: battery and idle checks.
    case tick
    /// Graceful shutdown.
    case shutdown
}

/// The Progressor's control sequence, run by one task (so its state needs no lock):
///
/// - `.ready` (notifications on): `.connected` into the ring, write START (the ring gets the `.write` first, so the
///   device clock restarts), then ask for the battery voltage once, and again every `batteryInterval` while streaming.
/// - TARE from a client: write TARE if the link is up, else reply with the no-device error.
/// - Idle: once `sessionGap` passes without an effort starting or ending (the consumer records the time in
///   `EffortActivity`; an effort longer than the gap is not expected from a grip), write STOP and, with
///   `sleepWhenIdle`, SLEEP. A new link (`.ready`) or a client's WATCH starts measuring again.
/// - Link loss: `.disconnected` into the ring (the segmenter closes an open effort as open).
///
/// Every command is encoded by the profile (`TindeqProgressor.encode`); no byte is spelled here.
struct ProgressorControl {
    let profile: TindeqProgressor
    let configuration: RadioConfiguration
    let sessionGapMicros: Int64
    let radio: RadioRing
    let activity: EffortActivity
    let status: DaemonStatus
    let outbox: Mailbox<DaemonReply>
    let logger: Logger
    /// Feeds `.tick` back into the control task's input stream.
    let ticks: AsyncStream<ControlInput>.Continuation

    private var connection: DeviceConnection?
    private var address: String?
    private var name: String?
    private var state = ""
    private var linkUp = false
    private var everConnected = false
    private var streamingSinceMicros: Int64 = 0
    private var lastBatteryMicros: Int64 = 0
    private var ticker: Task<Void, Never>?

    init(
        profile: TindeqProgressor, configuration: RadioConfiguration, sessionGapMicros: Int64, radio: RadioRing,
        activity: EffortActivity, status: DaemonStatus, outbox: Mailbox<DaemonReply>, logger: Logger,
        ticks: AsyncStream<ControlInput>.Continuation
    ) {
        self.profile = profile
        self.configuration = configuration
        self.sessionGapMicros = sessionGapMicros
        self.radio = radio
        self.activity = activity
        self.status = status
        self.outbox = outbox
        self.logger = logger
        self.ticks = ticks
    }

    /// Handles inputs until `.shutdown`.
    mutating func run(_ inputs: AsyncStream<ControlInput>) async {
        setState("searching")
        for await input in inputs {
            if await !handle(input) { break }
        }
        stopTicker()
    }

    /// - Returns: false at shutdown.
    private mutating func handle(_ input: ControlInput) async -> Bool {
        switch input {
        case .searching(let problem):
            status.update { $0.deviceProblem = problem }
            if !linkUp { setState("searching") }
        case .found(let address, let name):
            self.address = address
            self.name = name
            status.update { $0.deviceProblem = nil }
            setState("connecting")
        case .attached(let connection):
            self.connection = connection
        case .detached:
            connection = nil
            linkDown(reason: "connection ended")
        case .link(let event):
            await handle(event)
        case .request(.tare(let reply)):
            guard linkUp, connection != nil else {
                reply(DeviceRequests.noDeviceForTare)
                return true
            }
            let failure = await write(.tare)
            logger.info("Device tared", metadata: ["device.address": "\(address ?? "")", "tare.ok": "\(failure == nil)"])
            reply(failure.map { "tare failed: \($0)" })
        case .request(.resume):
            if linkUp && state == "stopped" { await startMeasurement() }
        case .tick:
            await checkStreaming()
        case .shutdown:
            return false
        }
        return true
    }

    private mutating func handle(_ event: DeviceConnection.Event) async {
        let metadata: Logger.Metadata = ["device.address": "\(address ?? "")"]
        switch event {
        case .waitingForDevice:
            logger.info("Device not known to BlueZ; scanning for it", metadata: metadata)
            setState("searching")
        case .connecting(let attempt):
            if everConnected || attempt > 1 {
                logger.info("Device reconnect attempt", metadata: metadata.merging(["connect.attempt": "\(attempt)"]) { $1 })
            }
            if !linkUp { setState("connecting") }
        case .retrying(let attempt, let after, let error):
            logger.notice("Device connect attempt failed", metadata: metadata.merging([
                "connect.attempt": "\(attempt)", "connect.retryAfter": "\(after)", "error": "\(error)"]) { $1 })
        case .servicesResolved:
            logger.debug("Device services resolved", metadata: metadata)
        case .fellBackToStartNotify(let dbusError):
            logger.notice("AcquireNotify refused; using StartNotify", metadata: metadata.merging(["dbus.error": "\(dbusError)"]) { $1 })
        case .ready(_, let mode):
            linkUp = true
            everConnected = true
            radio.pushLink(up: true)
            logger.info("Device connected", metadata: metadata.merging([
                "device.name": "\(name ?? "")", "notify.mode": "\(mode == .startNotify ? "start" : "acquire")"]) { $1 })
            setState("connected")
            await startMeasurement()
        case .servicesChanged:
            logger.info("Device services changed; resolving them again", metadata: metadata)
        case .bluetoothdStopped:
            logger.warning("bluetoothd stopped; waiting for it to come back", metadata: metadata)
        case .disconnected(let reason):
            linkDown(reason: reason)
        }
    }

    private mutating func linkDown(reason: String) {
        stopTicker()
        guard linkUp else { return }
        linkUp = false
        radio.pushLink(up: false)
        logger.warning("Device disconnected", metadata: ["device.address": "\(address ?? "")", "disconnect.reason": "\(reason)"])
        setState("disconnected")
    }

    private mutating func startMeasurement() async {
        guard await write(.startMeasurement) == nil else { return }
        let now = DeviceConnection.hostMicros()
        streamingSinceMicros = now
        lastBatteryMicros = now
        setState("streaming")
        _ = await write(.battery)
        startTicker()
    }

    /// Battery every `batteryInterval`; STOP (and SLEEP) after `sessionGap` without effort activity.
    private mutating func checkStreaming() async {
        guard linkUp, state == "streaming" else { return }
        let now = DeviceConnection.hostMicros()
        let lastActivity = max(activity.lastEffortMicros, streamingSinceMicros)
        if now - lastActivity >= sessionGapMicros {
            stopTicker()
            guard await write(.stopMeasurement) == nil else { return }
            setState("stopped")
            logger.info("Device idle; measurement stopped", metadata: [
                "device.address": "\(address ?? "")", "idle.seconds": "\((now - lastActivity) / 1_000_000)",
                "device.sleep": "\(configuration.sleepWhenIdle)"])
            if configuration.sleepWhenIdle { _ = await write(.sleep) }
        } else if now - lastBatteryMicros >= configuration.batteryInterval.micros {
            lastBatteryMicros = now
            _ = await write(.battery)
        }
    }

    /// Writes a command to the control point (pushing it into the ring first).
    /// - Returns: nil on success, else what went wrong.
    private func write(_ command: DeviceCommand) async -> String? {
        guard let connection, linkUp else { return DeviceRequests.noDeviceForTare }
        guard let bytes = profile.encode(command) else { return "the \(profile.name) has no \(command) command" }
        radio.pushWrite(bytes)
        do {
            try await connection.write(bytes, to: profile.controlCharacteristicUUID)
            logger.debug("Device command written", metadata: ["device.command": "\(command)"])
            return nil
        } catch {
            logger.warning("Device command failed", metadata: [
                "device.address": "\(address ?? "")", "device.command": "\(command)", "error": "\(error)"])
            return "\(error)"
        }
    }

    /// Publishes a state change to STATUS and to watchers (DEVICE "event":"state").
    private mutating func setState(_ new: String) {
        guard new != state else { return }
        state = new
        let (address, name) = (address, name)
        status.update { snapshot in
            snapshot.deviceState = new
            snapshot.deviceAddress = address
            snapshot.deviceName = name
        }
        outbox.post(DaemonReply(target: .watchers, line: ProtocolMessage.deviceState(new, address: address, name: name)))
        logger.debug("Device state", metadata: ["device.state": "\(new)", "device.address": "\(address ?? "")"])
    }

    private mutating func startTicker() {
        stopTicker()
        // Often enough for a 5 min gap to be noticed within ~1 %, and for short test gaps; never busier than 20 Hz.
        let interval = max(.milliseconds(50), min(.seconds(5), Duration.microseconds(sessionGapMicros) / 8,
                                                   configuration.batteryInterval / 2))
        let ticks = ticks
        ticker = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                ticks.yield(.tick)
            }
        }
    }

    private mutating func stopTicker() {
        ticker?.cancel()
        ticker = nil
    }
}

extension Duration {
    /// Whole microseconds.
    var micros: Int64 {
        components.seconds * 1_000_000 + components.attoseconds / 1_000_000_000_000
    }
}
