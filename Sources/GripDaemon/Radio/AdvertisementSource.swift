import GripBlueZ
import GripStream
import GripWire
import Logging
import ServiceLifecycle
import Synchronization

/// The live source for a device that sends its data in advertisements (the WH-C06): no connection, no commands.
///
/// A discovery with `DuplicateData` runs for as long as the daemon does; each advertisement's manufacturer data
/// from the device goes straight from the D-Bus thread into the ring, as a notification on the radio's force
/// handle. The link is "up" from the first advertisement and "down" after `advertisementSilence` (10 s) without
/// one (the scale went out of range or switched off), so the pipeline closes an open effort and the DEVICE lines
/// read as for a connected device. If bluetoothd or the bus goes away, the watch is started again every `retryInterval`.
final class AdvertisementSource: Service, CustomStringConvertible {
    let configuration: RadioConfiguration
    let profile: any DeviceProfile
    let radio: RadioProducer
    let requests: DeviceRequests
    private let status: DaemonStatus
    private let outbox: Mailbox<DaemonReply>
    private let link: AdvertisedLink
    private let logger: Logger

    var description: String { "AdvertisementSource" }

    init(
        configuration: RadioConfiguration, profile: any DeviceProfile, ring: NotificationRing, status: DaemonStatus,
        outbox: Mailbox<DaemonReply>, logger: Logger
    ) {
        self.configuration = configuration
        self.profile = profile
        radio = RadioProducer(ring: ring)
        self.status = status
        self.outbox = outbox
        self.logger = logger
        link = AdvertisedLink(silenceMicros: configuration.advertisementSilence.micros)
        let name = profile.name
        // An advertising device takes no commands: TARE is answered at once; WATCH has nothing to restart.
        requests = DeviceRequests(outbox: outbox) { request in
            if case .tare(let reply) = request { reply("the \(name) takes no commands; tare it on the scale") }
        }
    }

    func run() async throws {
        logger.info("Advertisement source started", metadata: [
            "device.profile": "\(profile.identifier)", "device.address": "\(configuration.address ?? "any")"])
        setState("searching", address: nil, name: nil)
        let work = Task {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await self.superviseWatch() }
                group.addTask { await self.watchSilence() }
            }
        }
        await withTaskCancellationHandler {
            await withGracefulShutdownHandler { await work.value } onGracefulShutdown: { work.cancel() }
        } onCancel: {
            work.cancel()
        }
        if link.markDown() { radio.pushLink(up: false) }
        radio.pushEndOfStream()
        logger.info("Advertisement source stopped", metadata: ["ring.dropped": "\(radio.ring.dropped)"])
    }

    /// Bus, bluetoothd, adapter, discovery — and again after bluetoothd or the bus went away, until cancelled.
    private func superviseWatch() async {
        guard let manufacturerID = profile.manufacturerID else { return }
        let criteria = configuration.address.map { DeviceCriteria(address: $0) }
            ?? DeviceCriteria(namePrefix: configuration.namePrefix ?? profile.namePrefix)
        var lastProblem: String?
        while !Task.isCancelled {
            var client: BlueZClient?
            do throws(GripBlueZError) {
                let current = try await BlueZClient.connect(busAddress: configuration.busAddress)
                client = current
                let (radio, link, wake) = (radio, link, link.wake)
                let watch = try await current.watchManufacturerData(
                    manufacturerID, matching: criteria, adapter: configuration.adapter
                ) { device, data, hostMicros in
                    // D-Bus thread: the first advertisement after silence brings the link up, before its data. One
                    // that comes after the silence ran out, before the silence task noticed, ends the old link first,
                    // as replay does (AdvertisementSilence).
                    switch link.noteAdvertisement(at: hostMicros, from: device.address, named: device.name) {
                    case .none:
                        break
                    case .up:
                        radio.pushLink(up: true)
                        wake.yield()
                    case .downAndUp:
                        radio.pushLink(up: false)
                        radio.pushLink(up: true)
                    }
                    data.withUnsafeBytes { radio.pushNotification($0, hostMicros: hostMicros) }
                }
                if lastProblem != nil { logger.notice("Scanning for advertisements again") }
                lastProblem = nil
                logger.info("Scanning for the device's advertisements", metadata: ["scan.criteria": "\(criteria)"])
                // Returns on cancellation too (the cache's wait is cancellable).
                await watch.ended()
                await watch.stop()
            } catch {
                let problem = error.description
                if problem != lastProblem {
                    logger.warning("Bluetooth unavailable; retrying", metadata: [
                        "error": "\(problem)", "retry.seconds": "\(configuration.retryInterval)"])
                }
                lastProblem = problem
                status.update { $0.deviceProblem = problem }
            }
            client?.close()
            if Task.isCancelled { break }
            try? await Task.sleep(for: configuration.retryInterval)
        }
    }

    /// Sleeps until the link could have gone silent, and marks it down when it has; sleeps without a deadline
    /// while it is down (the next advertisement wakes it), so an absent device costs no wake-up.
    private func watchSilence() async {
        var wakes = link.wake.stream.makeAsyncIterator()
        // Whether "streaming" was published for the current up period; a wake may be stale (the link went down and
        // up again while this task was busy), so the state is read from the link, never from the wakes.
        var announced = false
        while !Task.isCancelled {
            guard let (downAtMicros, address, name) = link.current else {
                announced = false
                guard await wakes.next() != nil else { return }
                continue
            }
            if !announced {
                announced = true
                status.update { $0.deviceProblem = nil }
                logger.info("Device advertising", metadata: ["device.address": "\(address)", "device.name": "\(name ?? "")"])
                setState("streaming", address: address, name: name)
            }
            let remaining = downAtMicros - DeviceConnection.hostMicros()
            if remaining > 0 {
                try? await Task.sleep(for: .microseconds(remaining))
                continue
            }
            if link.expire(at: DeviceConnection.hostMicros()) {
                announced = false
                radio.pushLink(up: false)
                logger.warning("Device stopped advertising", metadata: [
                    "device.address": "\(address)", "silence.seconds": "\(configuration.advertisementSilence)"])
                setState("disconnected", address: address, name: name)
            }
        }
    }

    /// Publishes a state change to STATUS and to watchers (DEVICE "event":"state").
    private func setState(_ new: String, address: String?, name: String?) {
        status.update { snapshot in
            snapshot.deviceState = new
            if let address {
                snapshot.deviceAddress = address
                snapshot.deviceName = name
            }
        }
        outbox.post(DaemonReply(target: .watchers, line: ProtocolMessage.deviceState(new, address: address, name: name)))
    }
}
