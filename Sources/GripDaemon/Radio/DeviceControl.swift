import GripBlueZ
import GripProtocol
import GripWire
import Logging

/// Drives any device in the profile table through its `DeviceLifecycle`, run by one task (so its state needs no lock):
///
/// - `.ready` (notifications on): `.connected` into the ring, then the profile's `whenReady` commands (for the
///   Progressor START — the ring gets the `.write` first, so the device clock restarts — then the battery query);
///   `periodic` commands every `batteryInterval` while streaming.
/// - TARE from a client: write TARE if the link is up and the profile has it, else reply why not.
/// - Idle: once `sessionGap` passes without an effort starting or ending (the consumer records the time in
///   `EffortActivity`; an effort longer than the gap is not expected from a grip), write `whenIdle`, tell the
///   pipeline to end its open automatic recording (no sample will come to end it by the gap) and, with
///   `sleepWhenIdle`, write the profile's sleep command. A new link (`.ready`) or a client's WATCH starts measuring
///   again.
///   A passive device (no commands) just streams.
/// - Link loss: `.disconnected` into the ring (the segmenter closes an open effort as open).
///
/// The task sleeps until its next deadline (idle check or periodic query), so a streaming device costs one wake-up
/// per deadline, and a stopped or passive one none. Every command is encoded by the profile; no byte is spelled here.
struct DeviceControl {
    let profile: any DeviceProfile
    let configuration: RadioConfiguration
    let sessionGapMicros: Int64
    let radio: RadioProducer
    /// Told when measuring stops at idle, so the open automatic recording ends.
    let pipeline: PipelineControl
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
    private var lastPeriodicMicros: Int64 = 0
    private var ticker: Task<Void, Never>?
    /// The device lacks the profile's control point (a Mito, which streams once subscribed): no command is written
    /// until the next link.
    private var lacksControlPoint = false

    init(
        profile: any DeviceProfile, configuration: RadioConfiguration, sessionGapMicros: Int64, radio: RadioProducer,
        pipeline: PipelineControl, activity: EffortActivity, status: DaemonStatus, outbox: Mailbox<DaemonReply>,
        logger: Logger, ticks: AsyncStream<ControlInput>.Continuation
    ) {
        self.profile = profile
        self.configuration = configuration
        self.sessionGapMicros = sessionGapMicros
        self.radio = radio
        self.pipeline = pipeline
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
            guard profile.encode(.tare) != nil else {
                reply("the \(profile.name) has no tare command; unload it and the next effort's baseline is taken as zero")
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
        lacksControlPoint = false
        for command in profile.lifecycle.whenReady {
            // A failed START leaves the device as it was; a failed query does not stop streaming.
            let failure = await write(command)
            if failure != nil && lacksControlPoint {
                // A Progressor clone without the control point (Mito) notifies every reading once subscribed.
                logger.info("Device has no control point; its stream counts as started", metadata: [
                    "device.address": "\(address ?? "")", "device.control": "\(profile.controlCharacteristicUUID ?? "")"])
                break
            }
            if failure != nil && command == .startMeasurement { return }
        }
        let now = DeviceConnection.hostMicros()
        streamingSinceMicros = now
        lastPeriodicMicros = now
        setState("streaming")
        scheduleTick()
    }

    /// Host µs of the last effort start or end, or of the stream's start if none came since; now while an effort is
    /// under way (a pull longer than the session gap is not idleness: the stop comes a gap after it ends).
    private var lastActivityMicros: Int64 {
        activity.effortOpen ? DeviceConnection.hostMicros() : max(activity.lastEffortMicros, streamingSinceMicros)
    }

    /// When the idle stop is due: the session gap after the last activity.
    private var idleStopMicros: Int64 { lastActivityMicros + sessionGapMicros }

    /// Periodic queries every `batteryInterval`; the idle commands after `sessionGap` without effort activity.
    private mutating func checkStreaming() async {
        guard linkUp, state == "streaming" else { return }
        let now = DeviceConnection.hostMicros()
        let lifecycle = profile.lifecycle
        if lifecycle.stopsWhenIdle && now >= idleStopMicros {
            stopTicker()
            for command in lifecycle.whenIdle {
                guard await write(command) == nil else { return }
            }
            // No sample will come to end an open automatic recording now (`PipelineCommand.measurementStoppedIdle`).
            pipeline.post(.measurementStoppedIdle)
            setState("stopped")
            logger.info("Device idle; measurement stopped", metadata: [
                "device.address": "\(address ?? "")", "idle.seconds": "\((now - lastActivityMicros) / 1_000_000)",
                "device.sleep": "\(configuration.sleepWhenIdle)"])
            if configuration.sleepWhenIdle, let sleep = lifecycle.sleep { _ = await write(sleep) }
            return
        }
        if !lifecycle.periodic.isEmpty && now - lastPeriodicMicros >= configuration.batteryInterval.micros {
            lastPeriodicMicros = now
            for command in lifecycle.periodic { _ = await write(command) }
        }
        scheduleTick()
    }

    /// Writes a command to the control point (pushing it into the ring first).
    /// - Returns: nil on success, else what went wrong.
    private mutating func write(_ command: DeviceCommand) async -> String? {
        guard let connection, linkUp else { return DeviceRequests.noDeviceForTare }
        guard let bytes = profile.encode(command), let control = profile.controlCharacteristicUUID else {
            return "the \(profile.name) has no \(command) command"
        }
        guard !lacksControlPoint else { return "this \(profile.name) has no control point: it takes no commands" }
        radio.pushWrite(bytes)
        do {
            try await connection.write(bytes, to: control)
            logger.debug("Device command written", metadata: ["device.command": "\(command)"])
            return nil
        } catch .characteristicNotFound(_, let uuid) where uuid == control {
            lacksControlPoint = true
            return "this \(profile.name) has no control point: it takes no commands"
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

    /// Sleeps until the next deadline — the idle check or the next periodic query, whichever is first — and then
    /// feeds one `.tick`. Efforts move the idle deadline without waking this task: the tick finds it moved and
    /// sleeps again.
    private mutating func scheduleTick() {
        stopTicker()
        let lifecycle = profile.lifecycle
        var deadlines: [Int64] = []
        if lifecycle.stopsWhenIdle { deadlines.append(idleStopMicros) }
        if !lifecycle.periodic.isEmpty { deadlines.append(lastPeriodicMicros + configuration.batteryInterval.micros) }
        guard let next = deadlines.min() else { return }
        // At least 10 ms, so a deadline just missed does not spin.
        let delay = Duration.microseconds(max(10_000, next - DeviceConnection.hostMicros()))
        let ticks = ticks
        ticker = Task {
            guard (try? await Task.sleep(for: delay)) != nil else { return }
            ticks.yield(.tick)
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
