import GripBlueZ
import GripStream
import GripWire
import Logging
import ServiceLifecycle

/// The live source: finds the device through BlueZ, keeps a `DeviceConnection` to it, and feeds its notifications
/// into the ring; `DeviceControl` drives the device through its profile's lifecycle (START, battery, TARE, idle STOP).
///
/// Two tasks: the supervisor (bus → bluetoothd/adapter → discovery → connection, retried every `retryInterval` on
/// any failure, so a daemon started before bluetoothd keeps serving its socket and connects once it appears) and the
/// control task, which owns all device state and answers requests at once even while the supervisor is scanning.
/// Notifications bypass both: the D-Bus thread copies them straight into the ring.
final class BlueZSource: Service, CustomStringConvertible {
    let configuration: RadioConfiguration
    let profile: any DeviceProfile
    let radio: RadioProducer
    let requests: DeviceRequests
    private let control: DeviceControl
    private let inputs: AsyncStream<ControlInput>
    private let continuation: AsyncStream<ControlInput>.Continuation
    let logger: Logger
    /// How an acquired notify socket is read: batched unless a watcher takes the immediate pace.
    private let pacing: NotificationPacing

    var description: String { "BlueZSource" }

    /// - Parameters:
    ///   - sessionGapMicros: idle time after which measuring stops (the segmenter's session gap).
    ///   - pipeline: told when measuring stops at idle.
    ///   - outbox: where DEVICE state lines and TARE replies go to the socket thread.
    ///   - pacing: set by the socket server; read by the connection's acquired socket.
    init(
        configuration: RadioConfiguration, profile: any DeviceProfile, ring: NotificationRing, sessionGapMicros: Int64,
        pipeline: PipelineControl, activity: EffortActivity, status: DaemonStatus, outbox: Mailbox<DaemonReply>,
        pacing: NotificationPacing, logger: Logger
    ) {
        self.configuration = configuration
        self.pacing = pacing
        self.profile = profile
        self.logger = logger
        radio = RadioProducer(ring: ring)
        (inputs, continuation) = AsyncStream.makeStream(of: ControlInput.self)
        let continuation = continuation
        requests = DeviceRequests(outbox: outbox) { continuation.yield(.request($0)) }
        control = DeviceControl(
            profile: profile, configuration: configuration, sessionGapMicros: sessionGapMicros, radio: radio,
            pipeline: pipeline, activity: activity, status: status, outbox: outbox, logger: logger, ticks: continuation)
    }

    func run() async throws {
        logger.info("Radio source started", metadata: [
            "device.profile": "\(profile.identifier)",
            "device.address": "\(configuration.address ?? "any")", "device.adapter": "\(configuration.adapter ?? "first")",
            "notify.mode": "\(configuration.notifyMode.rawValue)"])
        await withGracefulShutdownHandler {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await self.superviseLink() }
                var control = self.control
                await control.run(self.inputs)
                group.cancelAll()
            }
        } onGracefulShutdown: { [continuation] in
            continuation.yield(.shutdown)
        }
        continuation.finish()
        radio.pushEndOfStream()
        logger.info("Radio source stopped", metadata: ["ring.dropped": "\(radio.ring.dropped)"])
    }

    /// Bus, bluetoothd, adapter, device, connection — and again after any failure, until cancelled.
    private func superviseLink() async {
        var client: BlueZClient?
        var lastProblem: String?
        while !Task.isCancelled {
            do throws(GripBlueZError) {
                let current: BlueZClient
                if let client {
                    current = client
                } else {
                    current = try await BlueZClient.connect(busAddress: configuration.busAddress)
                    client = current
                }
                _ = try await current.adapter(configuration.adapter)
                let device = try await find(with: current)
                if lastProblem != nil { logger.notice("Device found again", metadata: ["device.address": "\(device.address)"]) }
                lastProblem = nil
                logger.info("Device found", metadata: ["device.address": "\(device.address)", "device.name": "\(device.name ?? "")"])
                continuation.yield(.found(address: device.address, name: device.name))
                let connection = makeConnection(client: current, address: device.address)
                continuation.yield(.attached(connection))
                defer { continuation.yield(.detached) }
                try await connection.run()
            } catch {
                if Task.isCancelled { break }
                let problem = error.description
                // Loud once per distinct problem, quiet while it persists (the retry runs every few seconds).
                if problem != lastProblem {
                    logger.warning("Bluetooth unavailable; retrying", metadata: [
                        "error": "\(problem)", "retry.seconds": "\(configuration.retryInterval)"])
                } else {
                    logger.debug("Bluetooth still unavailable", metadata: ["error": "\(problem)"])
                }
                lastProblem = problem
                continuation.yield(.searching(problem: problem))
                switch error {
                case .busUnavailable, .closed:
                    client?.close()
                    client = nil
                default:
                    break
                }
            }
            if Task.isCancelled { break }
            try? await Task.sleep(for: configuration.retryInterval)
        }
        client?.close()
    }

    /// The configured address; else a device named with the prefix (or one of the profile's exact names); else one
    /// advertising the profile's service, unless that is a generic UART.
    /// One scan runs until one appears (no restarts, no polling: a daemon whose device is away sleeps); after
    /// `discoveryTimeout` without one, STATUS says so once, and the scan goes on.
    private func find(with client: BlueZClient) async throws(GripBlueZError) -> DeviceInfo {
        let criteria: [DeviceCriteria]
        if let address = configuration.address {
            criteria = [DeviceCriteria(address: address)]
        } else {
            // A configured prefix replaces the profile's names; a generic UART's service identifies nothing.
            var names: [DeviceCriteria] = []
            if let prefix = configuration.namePrefix ?? profile.namePrefix { names.append(DeviceCriteria(namePrefix: prefix)) }
            if configuration.namePrefix == nil { names += profile.exactNames.map { DeviceCriteria(name: $0) } }
            let byService = profile.dataServiceIsShared ? [] : [DeviceCriteria(serviceUUID: profile.serviceUUID)]
            criteria = names + byService
        }
        let notYet = GripBlueZError.deviceNotFound(
            criteria: DeviceCriteria.describe(anyOf: criteria), seconds: configuration.discoveryTimeout.seconds)
        let report = Task { [continuation, configuration, logger] in
            try? await Task.sleep(for: configuration.discoveryTimeout)
            guard !Task.isCancelled else { return }
            logger.notice("No device seen yet; still scanning", metadata: ["error": "\(notYet)"])
            continuation.yield(.searching(problem: notYet.description))
        }
        defer { report.cancel() }
        return try await client.discover(anyOf: criteria, adapter: configuration.adapter, timeout: nil)
    }

    private func makeConnection(client: BlueZClient, address: String) -> DeviceConnection {
        var settings = DeviceConnection.Configuration(
            notifyCharacteristicUUID: profile.dataCharacteristicUUID,
            // A control point in another service (the Force Board's) is looked up on the whole device.
            serviceUUID: profile.controlSharesDataService ? profile.serviceUUID : nil,
            // BlueZ hands only notifications over a socket; indications always come through StartNotify.
            notifyMode: configuration.notifyMode == .acquire && profile.transport == .notify ? .acquireNotify : .startNotify)
        settings.initialBackoff = configuration.connectBackoff
        settings.pacing = pacing
        let radio = radio
        let continuation = continuation
        return DeviceConnection(
            client: client, address: address, adapter: configuration.adapter, configuration: settings,
            onNotification: { bytes, hostMicros in radio.pushNotification(bytes, hostMicros: hostMicros) },
            onEvent: { continuation.yield(.link($0)) })
    }
}

extension Duration {
    /// Seconds as a Double (for error texts).
    fileprivate var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
