import Foundation
import Testing

import GripAnalysis
import GripBlueZ
@testable import GripDaemon
import GripStore
import GripTestSupport

/// Every device in the profile table, streamed by the fake BlueZ and driven by griptrackd's generic device control:
/// discovered by its own GATT layout, started its own way (a START write, or just subscribing), timed on arrival
/// when it sends no time, and stored as a recording with the efforts the force shows.
@Suite(
    "griptrackd drives every device profile against the fake BlueZ", .serialized, .timeLimit(.minutes(2)),
    .enabled(if: FakeBlueZ.enabled, FakeBlueZ.skipMessage))
struct DeviceProfileEndToEndTests {
    /// A device of the table with the frames it sends for a force (kg), written from docs/devices.md.
    struct Device: CustomTestStringConvertible, Sendable {
        var kind: String
        var name: String
        var rateHz: Double
        var samplesPerFrame: Int
        /// The forces of one notification and the index of its first sample since the stream began.
        var frame: @Sendable ([Double], Int) -> [UInt8]
        /// What the device's encoding makes of a force (its resolution), as the daemon should report it.
        var quantized: @Sendable (Double) -> Float
        /// `[device] calibration`, for the device that needs one.
        var calibration: Double? = nil
        /// The profile griptrackd is configured with, when it is not the fake's kind (a clone's).
        var profile: String? = nil
        var testDescription: String { kind }
    }

    static let devices: [Device] = [
        Device(kind: "forceboard", name: "Force Board 0412", rateHz: 80, samplesPerFrame: 3, frame: { forces, _ in
            let count = UInt16(forces.count)
            return [UInt8(count >> 8), UInt8(count & 0xFF)] + forces.flatMap { kg -> [UInt8] in
                let pounds = Int((kg / 0.453_592).rounded())
                return [UInt8(pounds / 32_768), UInt8(pounds % 32_768 / 256), UInt8(pounds % 256)]
            }
        }, quantized: { Float((($0 / 0.453_592).rounded())) * 0.453_592 }),
        Device(kind: "entralpi", name: "ENTRALPI", rateHz: 10, samplesPerFrame: 1, frame: { forces, _ in
            let hundredths = UInt16((forces[0] * 100).rounded())
            return [UInt8(hundredths >> 8), UInt8(hundredths & 0xFF)]
        }, quantized: { Float(($0 * 100).rounded()) / 100 }),
        Device(kind: "weightscale", name: "Scale", rateHz: 5, samplesPerFrame: 1, frame: { forces, _ in
            let steps = UInt16((forces[0] / 0.005).rounded())
            return [0x00, UInt8(steps & 0xFF), UInt8(steps >> 8)]
        }, quantized: { Float(($0 / 0.005).rounded()) * 0.005 }),
        // Raw ADC (unloaded 84 000, 0.1 g a count) and a ms clock; the Dyno tares on its first 100 samples (0.3 kg
        // here), so forces read 0.3 kg less than applied.
        Device(kind: "frez", name: "Frez Dyno 0042", rateHz: 250, samplesPerFrame: 9, frame: { forces, first in
            var bytes: [UInt8] = [0x01, 0x00]
            for (offset, kg) in forces.enumerated() {
                let adc = Int32(84_000 + (kg / 0.0001).rounded())
                let millis = UInt32((first + offset + 1) * 4)
                withUnsafeBytes(of: adc.littleEndian) { bytes += $0 }
                withUnsafeBytes(of: millis.littleEndian) { bytes += $0 }
            }
            return bytes
        }, quantized: { Float(0.0001) * (Float(84_000 + ($0 / 0.0001).rounded()) - Float(87_000)) }, calibration: 0.0001),
        // 7-byte frames `05 01 w3 w2 w1 w0 cs` (u32 BE tens of grams), two a notification; found by its exact name.
        Device(kind: "cts500", name: "CTS500", rateHz: 80, samplesPerFrame: 2, frame: { forces, _ in
            forces.flatMap { kg -> [UInt8] in
                let count = UInt32((kg * 100).rounded())
                let body: [UInt8] = [0x05, 0x01] + (0..<4).map { UInt8(truncatingIfNeeded: count >> (24 - 8 * $0)) }
                return body + [body.reduce(0, &+)]
            }
        }, quantized: { Float(($0 * 100).rounded() / 100) }),
        // Whole kilograms after the sensor marker F5 (36 escaped as F6); streams once subscribed.
        Device(kind: "climbro", name: "Climbro 0815", rateHz: 10, samplesPerFrame: 2, frame: { forces, _ in
            [0xF5] + forces.map { kg in
                let whole = UInt8(kg.rounded())
                return whole == 36 ? 0xF6 : whole
            }
        }, quantized: { Float($0.rounded()) }),
        // A Mito in Tindeq mode: named exactly Progressor, no control point (the START write finds none, and the
        // stream counts as started), 10 Hz, µs since boot.
        Device(kind: "mito", name: "Progressor", rateHz: 10, samplesPerFrame: 1, frame: { forces, first in
            let micros = UInt32(37_000_000 + (first + 1) * 100_000)
            var bytes: [UInt8] = [0x01, 0x08]
            withUnsafeBytes(of: Float(forces[0]).bitPattern.littleEndian) { bytes += $0 }
            withUnsafeBytes(of: micros.littleEndian) { bytes += $0 }
            return bytes
        }, quantized: { Float($0) }, profile: "progressor"),
        // The Motherboard after `C` and `S30`: its table (100 kg at 1 000 000 counts on every cell) and the stream's
        // answer first, then 32-hex-digit lines with all the force on the left cell; found by its exact name.
        Device(kind: "motherboard", name: "Motherboard", rateHz: 30, samplesPerFrame: 1, frame: { forces, first in
            var text = first == 0
                ? (0..<4).map { "\($0),0,0,0\r\n\($0),1,100,1000000\r\n" }.joined() + "Stream: 30\r\n" : ""
            let adc = UInt32(Int32((forces[0] * 10_000).rounded())) & 0xFF_FFFF
            let number = UInt16(truncatingIfNeeded: first + 1)
            let bytes: [UInt8] = [UInt8(number & 0xFF), UInt8(number >> 8), 0x2C, 0x01,
                                  UInt8(adc & 0xFF), UInt8(adc >> 8 & 0xFF), UInt8(adc >> 16)] + [UInt8](repeating: 0, count: 9)
            text += bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16, uppercase: true) }.joined() + "\r\n"
            return Array(text.utf8)
        }, quantized: { Float(($0 * 10_000).rounded()) / 1_000_000 * 100 }),
        // Advertisements only: the fake sets ManufacturerData under company 0x0100 while the daemon discovers.
        Device(kind: "whc06", name: "IF_B7", rateHz: 5, samplesPerFrame: 1, frame: { forces, _ in
            let hundredths = Int16((forces[0] * 100).rounded())
            var bytes = [UInt8](repeating: 0, count: 17)
            bytes[10] = UInt8(truncatingIfNeeded: hundredths >> 8)
            bytes[11] = UInt8(truncatingIfNeeded: hundredths)
            bytes[14] = 0x11  // stable, kg
            return bytes
        }, quantized: { Float(($0 * 100).rounded()) / 100 }),
    ]

    /// Rest, pull, rest, pull, rest — held levels, at the device's rate and frame size.
    static func notifications(for device: Device, levels: [(seconds: Double, kg: Double)]) -> [(delayMicros: Int, bytes: [UInt8])] {
        var frames: [(delayMicros: Int, bytes: [UInt8])] = []
        var pending: [Double] = []
        var sent = 0
        let period = 1_000_000 / device.rateHz
        for (seconds, kg) in levels {
            for _ in 0..<Int(seconds * device.rateHz) {
                pending.append(kg)
                if pending.count == device.samplesPerFrame {
                    frames.append((Int(period * Double(device.samplesPerFrame)), device.frame(pending, sent)))
                    sent += pending.count
                    pending.removeAll()
                }
            }
        }
        return frames
    }

    @Test("the device is found, started its own way, its efforts are measured and the recording is stored", arguments: devices)
    func streamsAndStores(_ device: Device) async throws {
        // The last rest outlasts the 3 s session gap, so the samples themselves end the recording and it is stored.
        let levels: [(seconds: Double, kg: Double)] = [(1.0, 0.3), (2.0, 20.0), (1.5, 0.3), (2.0, 25.0), (5.0, 0.3)]
        let fake = try FakeBlueZ(
            parameters: ["progressor": false, "resolveDelayMs": 5],
            notifications: Self.notifications(for: device, levels: levels))
        defer { fake.stop() }
        let harness = try await DaemonHarness.radio(
            fake: fake, profile: device.profile ?? device.kind, calibration: device.calibration, sessionGap: .seconds(3))
            .started()
        let client = try await harness.watch()
        try await fake.mock(
            "AddDevice", .objectPath(RadioEndToEndTests.adapterPath), .string("D0:0D:12:34:56:78"), .string(device.name),
            .string(device.kind), .boolean(false))

        let saved = try await client.read(until: "RECORDER", event: "saved")
        let savedLine = try #require(saved.match, "no recording was saved")
        let peaks = saved.seen.filter { $0["class"] as? String == "EFFORT" && $0["event"] as? String == "end" }
            .compactMap { $0["peak_kg"] as? Double }.map { Float($0) }
        #expect(peaks == [device.quantized(20), device.quantized(25)])
        let status = try await harness.status()
        let deviceStatus = status["device"] as? [String: Any]
        #expect(deviceStatus?["name"] as? String == device.name)
        #expect(deviceStatus?["profile"] as? String == device.profile ?? device.kind)
        try await harness.stop()

        let rows = try RecordingStore(path: harness.databasePath).listRecordings(limit: nil).visible
        let row = try #require(rows.first)
        #expect(rows.count == 1)
        #expect(row.id.rawValue == savedLine["id"] as? Int64 ?? Int64(savedLine["id"] as? Int ?? -1))
        #expect(row.effortCount == 2)
        #expect(row.maxKilograms.map { Float($0) } == device.quantized(25))
        let efforts = try RecordingStore(path: harness.databasePath).efforts(of: row.id)
        // Host-stamped timing keeps the device's pace: each 2 s pull lasts 2 s (within a sample or two), 3.5 s apart.
        let durations = efforts.map { Double($0.durationMicros) / 1e6 }
        #expect(durations.allSatisfy { abs($0 - 2.0) <= 2.5 / device.rateHz + 0.1 }, "durations \(durations)")
        let spacing = efforts.count == 2 ? Double(efforts[1].startMicros - efforts[0].startMicros) / 1e6 : 0
        #expect(abs(spacing - 3.5) <= 2.5 / device.rateHz + 0.1, "spacing \(spacing) s")
    }

    @Test("a sensor's own correction corrects every force before segmentation, is stored with the recording and shown in STATUS")
    func correctionIsApplied() async throws {
        let device = try #require(Self.devices.first { $0.kind == "cts500" })
        let address = "D0:0D:12:34:56:78"
        let correction = ForceCorrection(scale: 1.05, offsetKilograms: -0.2)
        let levels: [(seconds: Double, kg: Double)] = [(1.0, 0.3), (2.0, 20.0), (1.5, 0.3), (2.0, 25.0), (5.0, 0.3)]
        let fake = try FakeBlueZ(
            parameters: ["progressor": false, "resolveDelayMs": 5],
            notifications: Self.notifications(for: device, levels: levels))
        defer { fake.stop() }
        let harness = try DaemonHarness(capture: nil) { configuration in
            configuration.replayWaitsForWatcher = false
            var radio = RadioConfiguration(profile: "cts500", address: address, busAddress: fake.address)
            radio.retryInterval = .milliseconds(100)
            radio.discoveryTimeout = .seconds(2)
            radio.connectBackoff = .milliseconds(20)
            configuration.radio = radio
            configuration.file.device.address = address
            configuration.file.device.scale = correction.scale
            configuration.file.device.offsetKilograms = correction.offsetKilograms
            configuration.sessionGap = .seconds(3)
        }
        _ = await harness.started()
        let client = try await harness.watch()
        try await fake.mock(
            "AddDevice", .objectPath(RadioEndToEndTests.adapterPath), .string(address), .string(device.name),
            .string(device.kind), .boolean(false))
        let saved = try await client.read(until: "RECORDER", event: "saved")
        #expect(saved.match != nil, "no recording was saved")
        let peaks = saved.seen.filter { $0["class"] as? String == "EFFORT" && $0["event"] as? String == "end" }
            .compactMap { $0["peak_kg"] as? Double }.map { Float($0) }
        let expected = [correction.corrected(device.quantized(20)), correction.corrected(device.quantized(25))]
        #expect(peaks == expected)
        let deviceStatus = try await harness.status()["device"] as? [String: Any]
        #expect(deviceStatus?["correction_scale"] as? Double == 1.05)
        #expect(deviceStatus?["correction_offset_kg"] as? Double == -0.2)
        try await harness.stop()
        let row = try #require(try RecordingStore(path: harness.databasePath).listRecordings(limit: nil).visible.first)
        #expect(row.correction == correction)
        #expect(row.maxKilograms.map { Float($0) } == expected[1])
        // The raw reading is known from the stored force and the stored correction.
        #expect(abs(correction.raw(row.maxKilograms ?? 0) - 25) < 0.01)
    }

    @Test("a correction applies only to the sensor at [device] address it was measured on, never to a capture")
    func correctionBelongsToOneSensor() {
        var configuration = DaemonConfiguration(socketPath: "/nonexistent")
        configuration.file.device.address = "D0:0D:12:34:56:78"
        configuration.file.device.scale = 1.05
        configuration.radio = RadioConfiguration(profile: "progressor", address: "D0:0D:12:34:56:78")
        #expect(configuration.sensorCorrection == ForceCorrection(scale: 1.05, offsetKilograms: 0))
        configuration.radio?.address = "D0:0D:12:34:56:79"
        #expect(configuration.sensorCorrection == nil, "record --direct --device OTHER")
        configuration.radio?.address = "D0:0D:12:34:56:78"
        configuration.replayPath = "captures/progressor-max-pulls.btsnoop"
        #expect(configuration.sensorCorrection == nil, "a capture")
    }

    @Test("the Force Board gets Device Mode 0x04 to stream and 0x07 when idle; TARE writes 0x05")
    func forceBoardCommands() async throws {
        let device = Self.devices[0]
        let fake = try FakeBlueZ(
            parameters: ["progressor": false, "resolveDelayMs": 5],
            notifications: Self.notifications(for: device, levels: [(1.0, 0.3)]))
        defer { fake.stop() }
        let harness = try await DaemonHarness.radio(fake: fake, profile: "forceboard", sessionGap: .milliseconds(800)).started()
        let client = try await harness.watch()
        let devicePath = try await fake.mock(
            "AddDevice", .objectPath(RadioEndToEndTests.adapterPath), .string("D0:0D:12:34:56:79"), .string(device.name),
            .string("forceboard"), .boolean(false)).first?.objectPathValue
        let path = try #require(devicePath)
        #expect(try await client.read(until: "DEVICE", event: "state", where: { $0["state"] as? String == "streaming" }).match != nil)
        let tare = try await harness.greetedClient()
        tare.send("{\"class\":\"TARE\"}\n")
        #expect(try await tare.readMessage()?["ok"] as? Bool == true)
        #expect(try await client.read(until: "DEVICE", event: "state", where: { $0["state"] as? String == "stopped" }).match != nil)
        let mode = ObjectPath(rawValue: path.rawValue + "/service001b/char001c")
        let writes = try await fake.writes(on: mode).map(\.bytes)
        #expect(writes == [[0x04], [0x05], [0x07]])
        try await harness.stop()
    }

    @Test("the WH-C06 going silent mid-pull is a disconnect: the effort closes open; TARE is refused with a reason")
    func advertisingDeviceGoesSilent() async throws {
        let device = try #require(Self.devices.first { $0.kind == "whc06" })
        let fake = try FakeBlueZ(
            parameters: ["progressor": false, "resolveDelayMs": 5],
            notifications: Self.notifications(for: device, levels: [(1.0, 0.3), (1.5, 20.0)]))
        defer { fake.stop() }
        let harness = try DaemonHarness(capture: nil) { configuration in
            configuration.replayWaitsForWatcher = false
            var radio = RadioConfiguration(profile: "whc06", busAddress: fake.address)
            radio.retryInterval = .milliseconds(100)
            radio.advertisementSilence = .seconds(1)
            configuration.radio = radio
        }
        _ = await harness.started()
        let client = try await harness.watch()
        try await fake.mock(
            "AddDevice", .objectPath(RadioEndToEndTests.adapterPath), .string("D0:0D:12:34:56:7A"), .string("IF_B7"),
            .string("whc06"), .boolean(false))
        #expect(try await client.read(until: "EFFORT", event: "start").match != nil)
        let gone = try await client.read(until: "DEVICE", event: "state", where: { $0["state"] as? String == "disconnected" })
        #expect(gone.match != nil, "a silent scale is reported gone")
        // The pipeline's EFFORT end and the source's DEVICE state take different paths to the socket thread: the
        // effort's end may come just before or just after the state.
        let isEnd: ([String: Any]) -> Bool = { $0["class"] as? String == "EFFORT" && $0["event"] as? String == "end" }
        var ends = gone.seen.filter(isEnd)
        if ends.isEmpty { ends = [try await client.read(until: "EFFORT", event: "end").match].compactMap { $0 } }
        #expect(ends.count == 1)
        #expect(ends.first?["open"] as? Bool == true, "the pull was cut, not finished")

        let tare = try await harness.greetedClient()
        tare.send("{\"class\":\"TARE\"}\n")
        let reply = try await tare.readMessage()
        #expect(reply?["class"] as? String == "ERROR")
        #expect((reply?["message"] as? String)?.contains("takes no commands") == true)
        try await harness.stop()
    }

    @Test("a Frez Dyno without [device] calibration: griptrackd refuses to start and says where to set it")
    func frezNeedsCalibration() throws {
        #expect {
            _ = try DaemonHarness(capture: nil) { configuration in
                configuration.radio = RadioConfiguration(profile: "frez")
            }
        } throws: { error in
            guard case DaemonError.missingCalibration(let device) = error else { return false }
            return device == "Frez Dyno" && "\(error)".contains("set calibration = <kg per count> under [device]")
        }
    }
}
