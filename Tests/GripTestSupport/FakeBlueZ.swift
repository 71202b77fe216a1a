import Foundation
import Testing

import GripBlueZ

/// Runs Tests/FakeBlueZ/run-private-bus.sh (a private dbus-daemon plus the fake org.bluez) for one test, and talks
/// to the fake's control interface (`org.freedesktop.DBus.Mock` on `/`).
public final class FakeBlueZ: @unchecked Sendable {
    // SAFETY: used by one test at a time; the pipes are only touched from the test's task.

    public static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("FakeBlueZ")
    public static let script = directory.appendingPathComponent("run-private-bus.sh").path

    public static let progressorService = "7e4e1701-1ea6-40c9-9dcc-13d34ffead57"
    public static let progressorData = "7e4e1702-1ea6-40c9-9dcc-13d34ffead57"
    public static let progressorControl = "7e4e1703-1ea6-40c9-9dcc-13d34ffead57"
    public static let progressorAddress = "F0:0D:CA:FE:12:34"
    public static let progressorPath: ObjectPath = "/org/bluez/hci0/dev_F0_0D_CA_FE_12_34"
    public static let dataPath: ObjectPath = "/org/bluez/hci0/dev_F0_0D_CA_FE_12_34/service000b/char000c"
    public static let controlPath: ObjectPath = "/org/bluez/hci0/dev_F0_0D_CA_FE_12_34/service000b/char000f"

    /// Whether /usr/bin/python3 can run the fake (python3-dbusmock, python3-dbus, python3-gi installed).
    public static let isAvailable: Bool = {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", "import dbusmock, dbus, gi"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }()

    /// Run the BlueZ tests when the fake can run, and always under CI (where a missing fake must fail, not skip).
    public static let enabled: Bool = isAvailable || ProcessInfo.processInfo.environment["CI"] != nil
    public static let skipMessage: Comment =
        "/usr/bin/python3 lacks python3-dbusmock/python3-dbus/python3-gi: apt-get install python3-dbusmock python3-gi"

    public let address: String
    private let process: Process
    private let input: FileHandle
    private let output: FileHandle
    private var buffered = Data()
    private let workDirectory: URL
    package let control: BusConnection

    /// Writes `notifications` (delay µs, bytes) to a file the fake streams after a 0x65 write, then starts
    /// everything and waits until org.bluez is on the bus.
    public init(parameters: [String: any Sendable] = [:], notifications: [(delayMicros: Int, bytes: [UInt8])] = []) throws {
        guard Self.isAvailable else {
            throw FakeError(message: "cannot run the fake BlueZ: \(Self.skipMessage)")
        }
        workDirectory = FileManager.default.temporaryDirectory
            .appendingPathComponent("griptrack-fakebluez-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: workDirectory, withIntermediateDirectories: true)
        let notificationFile = workDirectory.appendingPathComponent("notifications.txt")
        try Self.notificationText(notifications).write(to: notificationFile, atomically: true, encoding: .ascii)
        var parameters = parameters
        parameters["notifications"] = notificationFile.path

        process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [Self.script, "-p", try Self.json(parameters), "--serve"]
        var environment = ProcessInfo.processInfo.environment
        environment["FAKE_BLUEZ_LOG"] = workDirectory.appendingPathComponent("fake.log").path
        process.environment = environment
        let stdinPipe = Pipe()
        let stdoutPipe = Pipe()
        process.standardInput = stdinPipe
        process.standardOutput = stdoutPipe
        input = stdinPipe.fileHandleForWriting
        output = stdoutPipe.fileHandleForReading
        try process.run()

        var address = ""
        while true {
            guard let line = Self.readLine(output, &buffered) else {
                throw FakeError(message: "run-private-bus.sh exited before org.bluez appeared")
            }
            if line.hasPrefix("DBUS_SYSTEM_BUS_ADDRESS=") { address = String(line.dropFirst(24)) }
            if line.hasPrefix("READY") { break }
        }
        self.address = address
        control = try BusConnection.open(address: address)
    }

    /// Tears down the fake and the private bus.
    public func stop() {
        control.close()
        try? input.close()
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: workDirectory)
    }

    deinit { if process.isRunning { stop() } }

    /// SIGKILLs the fake (a bluetoothd crash); the bus stays up.
    public func kill() throws {
        try command("kill", expect: "KILLED")
    }

    /// Starts the fake again with `parameters` (a bluetoothd restart).
    public func relaunch(parameters: [String: any Sendable]) throws {
        var parameters = parameters
        parameters["notifications"] = workDirectory.appendingPathComponent("notifications.txt").path
        try command("start " + Self.json(parameters), expect: "READY")
    }

    private func command(_ line: String, expect: String) throws {
        try input.write(contentsOf: Data((line + "\n").utf8))
        while let reply = Self.readLine(output, &buffered) {
            if reply.hasPrefix(expect) { return }
            if reply.hasPrefix("ERROR") { throw FakeError(message: reply) }
        }
        throw FakeError(message: "run-private-bus.sh exited during \(line)")
    }

    /// Calls a control method of the fake.
    @discardableResult
    public func mock(_ member: String, _ arguments: DBusValue...) async throws -> [DBusValue] {
        try await control.call("org.bluez", "/", "org.freedesktop.DBus.Mock", member, arguments, timeout: .seconds(30))
    }

    /// The fake's writes on a characteristic, as (bytes, type).
    public func writes(on characteristic: ObjectPath) async throws -> [(bytes: [UInt8], type: String)] {
        let reply = try await mock("GetWrites", .objectPath(characteristic))
        guard case .array(_, let entries)? = reply.first else { return [] }
        return entries.compactMap { entry in
            guard case .structure(let fields) = entry, fields.count == 2, let bytes = fields[0].bytesValue,
                  let type = fields[1].stringValue else { return nil }
            return (bytes, type)
        }
    }

    /// A counter from GetStats.
    public func stat(_ name: String) async throws -> Int64 {
        let reply = try await mock("GetStats")
        return reply.first?.propertiesValue?[name]?.integerValue ?? -1
    }

    private static func notificationText(_ notifications: [(delayMicros: Int, bytes: [UInt8])]) -> String {
        notifications.map { entry in
            "\(entry.delayMicros) " + entry.bytes.map { String(format: "%02x", $0) }.joined() + "\n"
        }.joined()
    }

    private static func json(_ parameters: [String: any Sendable]) throws -> String {
        let data = try JSONSerialization.data(withJSONObject: parameters, options: [.sortedKeys])
        return String(decoding: data, as: UTF8.self)
    }

    private static func readLine(_ handle: FileHandle, _ buffer: inout Data) -> String? {
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                buffer.removeSubrange(buffer.startIndex...newline)
                return line
            }
            let chunk = handle.availableData
            if chunk.isEmpty { return nil }
            buffer.append(chunk)
        }
    }
}

public struct FakeError: Error, CustomStringConvertible {
    public init(message: String) { self.message = message }
    public var message: String
    public var description: String { message }
}

/// Collects notifications delivered on the D-Bus thread, for assertions on the test's task.
public final class NotificationRecorder: @unchecked Sendable {
    public init() {}
    // SAFETY: all state behind `lock`.
    private let lock = NSLock()
    private var values: [[UInt8]] = []
    private var times: [Int64] = []
    private var reads: [Int64] = []
    private var readers: [UInt] = []

    public var handler: NotificationHandler {
        { [self] buffer, hostMicros in
            let bytes = Array(buffer)
            var now = timespec()
            clock_gettime(CLOCK_MONOTONIC, &now)
            lock.withLock {
                values.append(bytes)
                times.append(hostMicros)
                reads.append(Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1_000)
                readers.append(UInt(pthread_self()))
            }
        }
    }

    public var received: [[UInt8]] { lock.withLock { values } }
    /// Each notification's host time as the connection reported it (µs, CLOCK_MONOTONIC).
    public var hostTimes: [Int64] { lock.withLock { times } }
    /// When each notification reached the handler (µs, CLOCK_MONOTONIC): later than its host time when it waited.
    public var readTimes: [Int64] { lock.withLock { reads } }
    /// The thread (`pthread_self`) each notification reached the handler on.
    public var readerThreads: [UInt] { lock.withLock { readers } }

    /// Waits (polling every 10 ms, at most `timeout`) until at least `count` notifications arrived.
    public func waitFor(count: Int, timeout: Duration = .seconds(30)) async -> [[UInt8]] {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let current = received
            if current.count >= count { return current }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return received
    }
}

/// Collects events for assertions.
public final class EventRecorder<Event: Sendable>: @unchecked Sendable {
    public init() {}
    // SAFETY: all state behind `lock`.
    private let lock = NSLock()
    private var events: [Event] = []

    public func record(_ event: Event) { lock.withLock { events.append(event) } }
    public var all: [Event] { lock.withLock { events } }

    /// Waits (polling every 10 ms, at most `timeout`) until `predicate` holds for the recorded events.
    @discardableResult
    public func waitUntil(timeout: Duration = .seconds(30), _ predicate: ([Event]) -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if predicate(all) { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return predicate(all)
    }
}
