import Foundation
import Synchronization
import Testing

@testable import GripBlueZ
import GripTestSupport

/// Progressor-shaped notifications: weight frames, a repeated identical frame, an empty payload, a battery reply.
let streamed: [(delayMicros: Int, bytes: [UInt8])] = {
    var frames: [[UInt8]] = []
    for index in 0..<12 {
        var frame: [UInt8] = [0x01, 0x08]
        withUnsafeBytes(of: (Float(index) * 1.5).bitPattern.littleEndian) { frame += $0 }
        withUnsafeBytes(of: UInt32(index * 12_500).littleEndian) { frame += $0 }
        frames.append(frame)
    }
    frames.insert(frames[5], at: 6)  // identical consecutive values must still arrive twice
    frames.append([])  // zero-length notification
    frames.append([0x00, 0x04, 0x10, 0x0e, 0x00, 0x00])
    return frames.map { (2_000, $0) }
}()

/// A DeviceConnection running in a task, with everything it reports recorded.
struct Session {
    let client: BlueZClient
    let connection: DeviceConnection
    let events = EventRecorder<DeviceConnection.Event>()
    let notifications = NotificationRecorder()
    let task: Task<GripBlueZError?, Never>
    /// Runs the paced drains, as the daemon's consumer does; nil without pacing.
    let drainer: Drainer?

    init(_ fake: FakeBlueZ, mode: DeviceConnection.NotifyMode = .startNotify,
         configure: (inout DeviceConnection.Configuration) -> Void = { _ in }) async throws {
        client = try await BlueZClient.connect(busAddress: fake.address)
        var configuration = DeviceConnection.Configuration(
            notifyCharacteristicUUID: FakeBlueZ.progressorData, serviceUUID: FakeBlueZ.progressorService, notifyMode: mode)
        configuration.initialBackoff = .milliseconds(20)
        configure(&configuration)
        drainer = configuration.pacing.map(Drainer.init)
        let events = events
        connection = DeviceConnection(
            client: client, address: FakeBlueZ.progressorAddress, configuration: configuration,
            onNotification: notifications.handler, onEvent: { events.record($0) })
        let connection = connection
        task = Task {
            do throws(GripBlueZError) {
                try await connection.run()
                return nil
            } catch {
                return error
            }
        }
    }

    /// Number of `.ready` events so far.
    var readyCount: Int { events.all.filter { if case .ready = $0 { true } else { false } }.count }

    func waitForReady(_ count: Int = 1, timeout: Duration = .seconds(30)) async -> Bool {
        await events.waitUntil(timeout: timeout) { events in
            events.filter { if case .ready = $0 { true } else { false } }.count >= count
        }
    }

    /// Stops the session and returns how `run()` ended.
    func finish() async -> GripBlueZError? {
        connection.stop()
        let result = await task.value
        client.close()
        drainer?.stop()
        return result
    }
}

/// Plays the daemon's consumer for a paced session: a thread of its own that drains whenever a drain is due.
final class Drainer: Sendable {
    private let stopped = Atomic<Bool>(false)
    private let thread = Atomic<UInt>(0)

    init(_ pacing: NotificationPacing) {
        Thread.detachNewThread { [self] in
            thread.store(UInt(pthread_self()), ordering: .releasing)
            while !stopped.load(ordering: .relaxed) {
                // Polls every millisecond while not draining: this stand-in is woken by nobody.
                usleep(UInt32(clamping: max(1, min(pacing.microsUntilDrain() ?? 1_000, 1_000))))
                pacing.drainIfDue()
            }
        }
    }

    /// The drain thread's `pthread_self`.
    var threadID: UInt { thread.load(ordering: .acquiring) }

    func stop() { stopped.store(true, ordering: .relaxed) }
}

@Suite("DeviceConnection against the fake Progressor", .serialized, .timeLimit(.minutes(1)), .enabled(if: FakeBlueZ.enabled, FakeBlueZ.skipMessage))
struct DeviceConnectionTests {
    let expected = streamed.map(\.bytes)

    @Test("StartNotify delivers the streamed values byte-exact and in order")
    func startNotify() async throws {
        let fake = try FakeBlueZ(parameters: ["known": true], notifications: streamed)
        defer { fake.stop() }
        let session = try await Session(fake)
        #expect(await session.waitForReady())
        try await session.connection.write([0x65], to: FakeBlueZ.progressorControl)

        #expect(await session.notifications.waitFor(count: expected.count) == expected)
        let times = session.notifications.hostTimes
        #expect(zip(times, times.dropFirst()).allSatisfy { $0 <= $1 })
        #expect(session.events.all.contains(.ready(characteristic: FakeBlueZ.dataPath, mode: .startNotify)))
        #expect(try await fake.mock("GetNotifySessions", .objectPath(FakeBlueZ.dataPath))
            == [.strings([session.client.uniqueName])])
        #expect(await session.finish() == nil)
    }

    @Test("AcquireNotify delivers the values over the fd, empty payload included")
    func acquireNotify() async throws {
        let fake = try FakeBlueZ(parameters: ["known": true], notifications: streamed)
        defer { fake.stop() }
        let session = try await Session(fake, mode: .acquireNotify)
        #expect(await session.waitForReady())
        #expect(session.events.all.contains(.ready(characteristic: FakeBlueZ.dataPath, mode: .acquireNotify)))
        #expect(try await fake.mock("IsNotifyAcquired", .objectPath(FakeBlueZ.dataPath)) == [.boolean(true)])
        try await session.connection.write([0x65], to: FakeBlueZ.progressorControl)

        #expect(await session.notifications.waitFor(count: expected.count) == expected)
        #expect(await session.finish() == nil)
        // Closing the fd released the acquisition.
        var released = false
        for _ in 0..<100 where !released {
            released = try await fake.mock("IsNotifyAcquired", .objectPath(FakeBlueZ.dataPath)) == [.boolean(false)]
            if !released { try await Task.sleep(for: .milliseconds(10)) }
        }
        #expect(released)
    }

    @Test("AcquireNotify falls back to StartNotify when another client holds a notify session")
    func acquireFallsBack() async throws {
        let fake = try FakeBlueZ(parameters: ["known": true], notifications: streamed)
        defer { fake.stop() }
        // The control connection connects the device and holds a StartNotify session (docs/bluez.md pitfall 3).
        try await fake.control.call("org.bluez", FakeBlueZ.progressorPath, BlueZ.device, "Connect")
        try await Task.sleep(for: .milliseconds(100))
        try await fake.control.call("org.bluez", FakeBlueZ.dataPath, BlueZ.characteristic, "StartNotify")

        let session = try await Session(fake, mode: .acquireNotify)
        #expect(await session.waitForReady())
        #expect(session.events.all.contains(.fellBackToStartNotify(dbusError: "org.bluez.Error.InProgress")))
        #expect(session.events.all.contains(.ready(characteristic: FakeBlueZ.dataPath, mode: .startNotify)))
        try await session.connection.write([0x65], to: FakeBlueZ.progressorControl)
        #expect(await session.notifications.waitFor(count: expected.count) == expected)
        #expect(await session.finish() == nil)
        // We did not connect the device, so we did not disconnect it either.
        #expect(try await fake.stat("disconnectCalls") == 0)
    }

    @Test("Connect failures are retried with backoff, then the connection succeeds")
    func connectRetries() async throws {
        let fake = try FakeBlueZ(parameters: ["known": true], notifications: streamed)
        defer { fake.stop() }
        try await fake.mock("SetConnectError", .objectPath(FakeBlueZ.progressorPath), .string("org.bluez.Error.Failed"),
                            .string("le-connection-abort-by-local"), .uint32(2))
        let session = try await Session(fake)
        #expect(await session.waitForReady())

        let failure = { (attempt: Int) in
            GripBlueZError.connectFailed(device: FakeBlueZ.progressorAddress, attempts: attempt,
                                         dbusError: "org.bluez.Error.Failed", message: "le-connection-abort-by-local")
        }
        #expect(session.events.all == [
            .connecting(attempt: 1), .retrying(attempt: 1, after: .milliseconds(20), error: failure(1)),
            .connecting(attempt: 2), .retrying(attempt: 2, after: .milliseconds(40), error: failure(2)),
            .connecting(attempt: 3), .servicesResolved,
            .ready(characteristic: FakeBlueZ.dataPath, mode: .startNotify),
        ])
        #expect(try await fake.stat("connectCalls") == 3)
        #expect(await session.finish() == nil)
    }

    @Test("a Connect whose Connected=true is never signalled still resolves and streams")
    func connectWithoutConnectedSignal() async throws {
        // bluetoothd 5.66 when its ATT socket connects before it handles the management event (docs/bluez.md,
        // pitfall 14): Connect succeeds, Get says connected, and only ServicesResolved=true is signalled.
        let fake = try FakeBlueZ(parameters: ["known": true], notifications: streamed)
        defer { fake.stop() }
        try await fake.mock("SetSilentConnects", .objectPath(FakeBlueZ.progressorPath), .uint32(1))
        let session = try await Session(fake)
        #expect(await session.waitForReady())
        #expect(session.events.all == [
            .connecting(attempt: 1), .servicesResolved, .ready(characteristic: FakeBlueZ.dataPath, mode: .startNotify),
        ])
        try await session.connection.write([0x65], to: FakeBlueZ.progressorControl)
        #expect(await session.notifications.waitFor(count: expected.count) == expected)
        #expect(try await fake.stat("connectCalls") == 1)
        #expect(await session.finish() == nil)
    }

    @Test("Connect gives up after the configured attempts and keeps the D-Bus error")
    func connectGivesUp() async throws {
        let fake = try FakeBlueZ(parameters: ["known": true])
        defer { fake.stop() }
        try await fake.mock("SetConnectError", .objectPath(FakeBlueZ.progressorPath), .string("org.bluez.Error.Failed"),
                            .string("le-connection-timeout"), .uint32(10))
        let session = try await Session(fake) { $0.connectAttempts = 3 }
        let error = await session.task.value
        #expect(error == .connectFailed(device: FakeBlueZ.progressorAddress, attempts: 3,
                                        dbusError: "org.bluez.Error.Failed", message: "le-connection-timeout"))
        #expect(error?.dbusErrorName == "org.bluez.Error.Failed")
        #expect(try await fake.stat("connectCalls") == 3)
        session.client.close()
    }

    @Test("WriteValue takes its type from the Flags and reaches the fake")
    func writes() async throws {
        let fake = try FakeBlueZ(parameters: ["known": true])
        defer { fake.stop() }
        let session = try await Session(fake)
        #expect(await session.waitForReady())

        try await session.connection.write([0x6f], to: FakeBlueZ.progressorControl)
        try await session.connection.write([0x66, 0x00], to: FakeBlueZ.progressorControl, type: .command)
        let writes = try await fake.writes(on: FakeBlueZ.controlPath)
        #expect(writes.map(\.bytes) == [[0x6f], [0x66, 0x00]])
        #expect(writes.map(\.type) == ["request", "command"])
        await #expect(throws: GripBlueZError.notPermitted(characteristic: FakeBlueZ.dataPath.rawValue,
                                                          operation: "write (any)", flags: ["notify"])) {
            try await session.connection.write([0x01], to: FakeBlueZ.progressorData)
        }
        #expect(await session.finish() == nil)
    }

    @Test("a link drop is reported, the device reconnects and notifications resume without doubling")
    func linkDrop() async throws {
        let fake = try FakeBlueZ(parameters: ["known": true], notifications: streamed)
        defer { fake.stop() }
        let session = try await Session(fake)
        #expect(await session.waitForReady())
        try await session.connection.write([0x65], to: FakeBlueZ.progressorControl)
        #expect(await session.notifications.waitFor(count: expected.count) == expected)

        try await fake.mock("DropLink", .objectPath(FakeBlueZ.progressorPath), .boolean(false))
        #expect(await session.waitForReady(2))
        #expect(session.events.all.contains(.disconnected(reason: "link lost")))
        try await session.connection.write([0x65], to: FakeBlueZ.progressorControl)
        #expect(await session.notifications.waitFor(count: 2 * expected.count) == expected + expected)
        #expect(try await fake.mock("GetNotifySessions", .objectPath(FakeBlueZ.dataPath))
            == [.strings([session.client.uniqueName])])
        #expect(await session.finish() == nil)
    }

    @Test("a link drop with AcquireNotify re-acquires the fd after reconnecting")
    func linkDropAcquire() async throws {
        let fake = try FakeBlueZ(parameters: ["known": true], notifications: streamed)
        defer { fake.stop() }
        let session = try await Session(fake, mode: .acquireNotify)
        #expect(await session.waitForReady())
        try await fake.mock("DropLink", .objectPath(FakeBlueZ.progressorPath), .boolean(false))
        #expect(await session.waitForReady(2))
        #expect(session.events.all.filter { $0 == .ready(characteristic: FakeBlueZ.dataPath, mode: .acquireNotify) }.count == 2)
        try await session.connection.write([0x65], to: FakeBlueZ.progressorControl)
        #expect(await session.notifications.waitFor(count: expected.count) == expected)
        #expect(await session.finish() == nil)
    }

    @Test("services that vanish and come back with new handles are re-resolved by UUID")
    func servicesComeBack() async throws {
        let fake = try FakeBlueZ(parameters: ["known": true], notifications: streamed)
        defer { fake.stop() }
        let session = try await Session(fake)
        #expect(await session.waitForReady())

        try await fake.mock("RemoveServices", .objectPath(FakeBlueZ.progressorPath))
        #expect(await session.events.waitUntil { $0.contains(.servicesChanged) })
        try await fake.mock("RestoreServices", .objectPath(FakeBlueZ.progressorPath), .uint16(0x20))
        #expect(await session.waitForReady(2))
        let moved: ObjectPath = "/org/bluez/hci0/dev_F0_0D_CA_FE_12_34/service002b/char002c"
        #expect(session.events.all.last == .ready(characteristic: moved, mode: .startNotify))
        try await session.connection.write([0x65], to: FakeBlueZ.progressorControl)
        #expect(await session.notifications.waitFor(count: expected.count) == expected)
        #expect(await session.finish() == nil)
    }

    @Test("a bluetoothd crash and restart is recovered within 5 s")
    func bluetoothdRestart() async throws {
        let fake = try FakeBlueZ(parameters: ["known": true], notifications: streamed)
        defer { fake.stop() }
        let session = try await Session(fake)
        #expect(await session.waitForReady())

        try fake.kill()
        #expect(await session.events.waitUntil { $0.contains(.disconnected(reason: "bluetoothd stopped")) })
        #expect(session.events.all.contains(.bluetoothdStopped))
        try fake.relaunch(parameters: ["known": true])
        #expect(await session.waitForReady(2, timeout: .seconds(5)))
        try await session.connection.write([0x65], to: FakeBlueZ.progressorControl)
        #expect(await session.notifications.waitFor(count: expected.count) == expected)
        #expect(await session.finish() == nil)
    }

    @Test("stop ends the notify session and disconnects the device it connected")
    func cleanup() async throws {
        let fake = try FakeBlueZ(parameters: ["known": true])
        defer { fake.stop() }
        let session = try await Session(fake)
        #expect(await session.waitForReady())
        #expect(await session.finish() == nil)
        #expect(try await fake.mock("GetNotifySessions", .objectPath(FakeBlueZ.dataPath)) == [.strings([])])
        #expect(try await fake.stat("disconnectCalls") == 1)
    }

    @Test("a device BlueZ does not know yet is scanned for by address, then connected")
    func scansForUnknownDevice() async throws {
        let fake = try FakeBlueZ(notifications: streamed)
        defer { fake.stop() }
        let session = try await Session(fake) { $0.rediscoverAfter = .milliseconds(200) }
        #expect(await session.waitForReady())
        #expect(session.events.all.first == .waitingForDevice)
        #expect(await session.finish() == nil)
    }

    @Test("closing the client ends run() with .closed instead of hanging")
    func clientClosed() async throws {
        let fake = try FakeBlueZ(parameters: ["known": true])
        defer { fake.stop() }
        let session = try await Session(fake)
        #expect(await session.waitForReady())
        session.client.close()
        #expect(await session.task.value == .closed)
    }

    @Test("with reconnect off, a link drop ends run() with a disconnected error")
    func noReconnect() async throws {
        let fake = try FakeBlueZ(parameters: ["known": true])
        defer { fake.stop() }
        let session = try await Session(fake) { $0.reconnect = false }
        #expect(await session.waitForReady())
        try await fake.mock("DropLink", .objectPath(FakeBlueZ.progressorPath), .boolean(false))
        #expect(await session.task.value == .disconnected(device: FakeBlueZ.progressorAddress, reason: "link lost"))
        session.client.close()
    }
}

@Suite("DeviceConnection draining AcquireNotify in batches", .serialized, .timeLimit(.minutes(1)), .enabled(if: FakeBlueZ.enabled, FakeBlueZ.skipMessage))
struct PacedAcquireNotifyTests {
    /// Weight frames with increasing values, so order and loss show.
    static func frames(_ count: Int) -> [[UInt8]] {
        (0..<count).map { index in
            var frame: [UInt8] = [0x01, 0x08]
            withUnsafeBytes(of: Float(index).bitPattern.littleEndian) { frame += $0 }
            withUnsafeBytes(of: UInt32(index * 5_000).littleEndian) { frame += $0 }
            return frame
        }
    }

    @Test("batched: every value in order, each with its arrival time rather than the time its batch was read")
    func batchesKeepArrivalTimes() async throws {
        let frames = Self.frames(40)
        let fake = try FakeBlueZ(parameters: ["known": true], notifications: frames.map { (5_000, $0) })
        defer { fake.stop() }
        let session = try await Session(fake, mode: .acquireNotify) {
            $0.pacing = NotificationPacing(batchInterval: .milliseconds(100))
        }
        #expect(await session.waitForReady())
        try await session.connection.write([0x65], to: FakeBlueZ.progressorControl)

        #expect(await session.notifications.waitFor(count: frames.count) == frames)
        let arrived = session.notifications.hostTimes
        let read = session.notifications.readTimes
        #expect(zip(arrived, arrived.dropFirst()).allSatisfy { $0 <= $1 })
        // Read in batches, yet each value carries the time it arrived, not the time it was read: most waited in the
        // socket (about 50 ms on average at a 100 ms drain). (How far apart they arrived is up to the fake's
        // scheduling on a loaded machine, so it is not asserted.)
        let waits = zip(arrived, read).map { $1 - $0 }.sorted()
        #expect(waits[waits.count / 2] >= 20_000, "median wait \(waits[waits.count / 2]) µs")
        // Drained by the owner's thread, not the D-Bus thread: only the first datagrams, which show the device is
        // fast enough to batch, are read on arrival.
        let drainer = try #require(session.drainer)
        let onDrainer = session.notifications.readerThreads.filter { $0 == drainer.threadID }.count
        #expect(onDrainer >= frames.count - 5, "\(onDrainer) of \(frames.count) values were read by the drain thread")
        #expect(await session.finish() == nil)
    }

    @Test("switched to immediate, values are read as they arrive")
    func immediateReadsOnArrival() async throws {
        let frames = Self.frames(20)
        let fake = try FakeBlueZ(parameters: ["known": true], notifications: frames.map { (5_000, $0) })
        defer { fake.stop() }
        let pacing = NotificationPacing(batchInterval: .milliseconds(200))
        let session = try await Session(fake, mode: .acquireNotify) { $0.pacing = pacing }
        #expect(await session.waitForReady())
        pacing.setImmediate(true)
        try await Task.sleep(for: .milliseconds(400))  // the next drain sees the change and polls for input again
        try await session.connection.write([0x65], to: FakeBlueZ.progressorControl)

        #expect(await session.notifications.waitFor(count: frames.count) == frames)
        let waits = zip(session.notifications.hostTimes, session.notifications.readTimes).map { $1 - $0 }.sorted()
        #expect(waits[waits.count / 2] < 50_000, "median wait \(waits[waits.count / 2]) µs")
        #expect(await session.finish() == nil)
    }

    /// A paced AcquireNotify session on `fake` (which sends nothing until told), read on arrival.
    static func quietSession(
        _ fake: FakeBlueZ, batchInterval: Duration, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> (Session, NotificationPacing) {
        let pacing = NotificationPacing(batchInterval: batchInterval)
        let session = try await Session(fake, mode: .acquireNotify) { $0.pacing = pacing }
        #expect(await session.waitForReady(), sourceLocation: sourceLocation)
        // Nothing has arrived, so nothing is drained: draining starts only once datagrams come quickly.
        #expect(
            await within(.seconds(10)) { !pacing.isDraining }, "still draining an idle socket",
            sourceLocation: sourceLocation)
        return (session, pacing)
    }

    @Test("a quiet device wakes nobody: the drain stops once it finds nothing, and the next value is read on arrival")
    func quietStopsTheDrain() async throws {
        let frames = Self.frames(5)
        let fake = try FakeBlueZ(parameters: ["known": true], notifications: [])
        defer { fake.stop() }
        let (session, pacing) = try await Self.quietSession(fake, batchInterval: .seconds(2))

        for frame in frames {
            _ = try await fake.mock("EmitNotification", .objectPath(FakeBlueZ.dataPath), .bytes(frame))
        }
        #expect(await session.notifications.waitFor(count: frames.count, timeout: .seconds(10)) == frames)
        // Read as it arrived, not up to a batch interval (2 s) later.
        let firstWait = session.notifications.readTimes[0] - session.notifications.hostTimes[0]
        #expect(firstWait < 1_000_000, "the first value after a quiet spell waited \(firstWait) µs")
        // And once the burst is over the drain stops again.
        #expect(await Self.within(.seconds(10)) { !pacing.isDraining }, "still draining after the burst")
        #expect(await session.finish() == nil)
    }

    @Test("a device slower than one notification per drain interval is read on arrival, with no drain in between")
    func slowDeviceIsReadOnArrival() async throws {
        let frames = Self.frames(4)
        let fake = try FakeBlueZ(parameters: ["known": true], notifications: [])
        defer { fake.stop() }
        let (session, pacing) = try await Self.quietSession(fake, batchInterval: .milliseconds(300))
        for (index, frame) in frames.enumerated() {
            _ = try await fake.mock("EmitNotification", .objectPath(FakeBlueZ.dataPath), .bytes(frame))
            #expect(await session.notifications.waitFor(count: index + 1, timeout: .seconds(10)) == Array(frames[...index]))
            // A drain started on this arrival would run until its timer found the socket empty, 300 ms or more.
            try await Task.sleep(for: .milliseconds(50))
            #expect(!pacing.isDraining, "notification \(index), 750 ms after the one before, started draining")
            try await Task.sleep(for: .milliseconds(700))
        }
        #expect(await session.finish() == nil)
    }

    /// Polls `condition` every 10 ms until it holds or `timeout` passes.
    static func within(_ timeout: Duration, _ condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return condition()
    }

    @Test("a link drop between drains loses nothing: what the socket holds is read before it is released")
    func hangUpDrainsFirst() async throws {
        let frames = Self.frames(10)
        let fake = try FakeBlueZ(parameters: ["known": true], notifications: [])
        defer { fake.stop() }
        let session = try await Session(fake, mode: .acquireNotify) {
            $0.pacing = NotificationPacing(batchInterval: .seconds(30))
        }
        #expect(await session.waitForReady())
        for frame in frames {
            _ = try await fake.mock("EmitNotification", .objectPath(FakeBlueZ.dataPath), .bytes(frame))
        }
        try await fake.mock("DropLink", .objectPath(FakeBlueZ.progressorPath), .boolean(false))
        #expect(await session.notifications.waitFor(count: frames.count, timeout: .seconds(10)) == frames)
        #expect(await session.events.waitUntil { $0.contains { if case .disconnected = $0 { true } else { false } } })
        #expect(await session.finish() == nil)
    }
}
