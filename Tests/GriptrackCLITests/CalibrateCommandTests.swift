import Foundation
import GripAnalysis
import GripConfig
import GripEntitlements
import GripStore
import GripTestSupport
import Testing

/// `griptrack calibrate` (docs/calibration.md) on the capture of a sensor that reads 2.5 % low, through the daemon it
/// runs inside itself; and the correction as `show` prints a recording made with it.
@Suite("griptrack calibrate", .serialized, .timeLimit(.minutes(4)))
struct CalibrateCommandTests {
    static let capture = CaptureFixtures.url("progressor-calibration-weight.btsnoop").path
    static let address = "D0:0D:12:34:56:78"

    @Test("the two steps give the correction that reads the known weight, written under [device] with the file kept")
    func writesTheCorrection() async throws {
        let sandbox = try CLISandbox(config: "# my station\n[entitlements]\nbypass = false\n")
        defer { sandbox.cleanUp() }
        let result = try await sandbox.plain([
            "calibrate", "--known-kg", "20", "--auto", "--replay", Self.capture, "--speed", "8", "--device",
            Self.address.lowercased(), "--write", "--config", sandbox.config, "--json",
        ])
        #expect(result.status == 0, "\(result)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        // The capture: 0.15 kg unloaded, 19.65 kg under the weight (sensor noise 0.02 kg).
        let scale = try #require(json["scale"] as? Double)
        let offset = try #require(json["offset_kg"] as? Double)
        #expect(abs(scale - 20 / 19.5) < 0.003, "scale \(scale)")
        #expect(abs(offset + 0.15 * 20 / 19.5) < 0.02, "offset \(offset)")
        #expect(json["address"] as? String == Self.address)
        #expect(json["written"] as? String == sandbox.config)
        let text = try String(contentsOfFile: sandbox.config, encoding: .utf8)
        #expect(text.hasPrefix("# my station\n[entitlements]\nbypass = false\n\n[device]\n"), "\(text)")
        let config = try GriptrackConfig.load(path: sandbox.config, required: true)
        #expect(config.device.address == Self.address)
        let correction = try #require(config.device.correction)
        #expect(abs(Double(correction.corrected(19.65)) - 20) < 0.01)
        // Nothing was recorded: the calibration's daemon had a throwaway database.
        #expect(!FileManager.default.fileExists(atPath: sandbox.database))
    }

    @Test("text output tells what to add without --write; a weight the sensor cannot be corrected to is refused")
    func textAndRefusals() async throws {
        let sandbox = try CLISandbox()
        defer { sandbox.cleanUp() }
        let text = try await sandbox.plain([
            "calibrate", "--known-kg", "20", "--auto", "--replay", Self.capture, "--speed", "8", "--config", sandbox.config,
        ])
        #expect(text.status == 0, "\(text)")
        // The capture holds 0.15 kg and 19.65 kg with 0.02 kg of noise: the hundredths of a 2 s mean may differ by one.
        #expect(text.stdout.contains("Step 1 of 2: take everything off the sensor and let it hang still.\n  read 0.1"))
        #expect(text.stdout.contains("Unloaded it read 0.1"), "\(text)")
        #expect(text.stdout.contains(" kg, loaded 19.6"), "\(text)")
        #expect(text.stdout.contains(" kg, for 20.00 kg.\nCorrection: × 1.02"), "\(text)")
        #expect(text.stdout.contains("\n  scale = 1.02"), "\(text)")
        #expect(!text.stdout.contains("address ="), "no address is known for a capture")
        #expect(try String(contentsOfFile: sandbox.config, encoding: .utf8) == "[entitlements]\nbypass = false\n")

        let noAddress = try await sandbox.plain([
            "calibrate", "--known-kg", "20", "--auto", "--replay", Self.capture, "--speed", "8", "--config", sandbox.config,
            "--write",
        ])
        #expect(noAddress.status == 5)
        #expect(noAddress.stderr.contains("a correction belongs to one sensor: give --device ADDRESS"), "\(noAddress)")

        let tooHeavy = try await sandbox.plain([
            "calibrate", "--known-kg", "40", "--auto", "--replay", Self.capture, "--speed", "8", "--config", sandbox.config,
        ])
        #expect(tooHeavy.status == 1)
        // 40 ÷ (19.65 − 0.15) ≈ 2.05; the third decimal depends on which 2 s of the noisy hold settled first.
        #expect(tooHeavy.stderr.contains("no correction: a scale of 2.05"), "\(tooHeavy)")
        #expect(tooHeavy.stderr.contains(" is outside 0.5–2.0: a sensor that far off needs its profile"), "\(tooHeavy)")

        let bad = try await sandbox.plain(["calibrate", "--known-kg", "0"])
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("--known-kg takes the weight's mass in kg, 1 to 500"))
    }

    @Test("a capture that ends before the weight settles is a clear failure, not a wait")
    func captureEndsFirst() async throws {
        let sandbox = try CLISandbox()
        defer { sandbox.cleanUp() }
        // Explosive pulls released within half a second: never a steady loaded reading.
        let result = try await sandbox.plain([
            "calibrate", "--known-kg", "20", "--auto", "--replay", sandbox.capture("rfd-pulls"), "--speed", "20",
            "--config", sandbox.config,
        ])
        #expect(result.status == 1)
        #expect(result.stderr.contains("the capture ended before the reading settled"), "\(result)")
    }

    @Test("show names the correction a recording was made with")
    func showNamesTheCorrection() async throws {
        let sandbox = try CLISandbox()
        defer { sandbox.cleanUp() }
        let store = try RecordingStore(path: sandbox.database)
        let start = Date(timeIntervalSince1970: 1_790_000_000)
        let samples = (0..<50).map { StoredSample(micros: Int64($0) * 100_000, kilograms: Float($0 % 20)) }
        _ = try store.saveRecording(
            Recording(startMicros: 0, endMicros: 5_000_000, efforts: [], falseStartsDropped: 0), samples: samples,
            draft: RecordingDraft(
                startedAt: start, device: Self.address, profile: "Tindeq Progressor",
                correction: ForceCorrection(scale: 1.0257, offsetKilograms: -0.154)),
            endedAt: start.addingTimeInterval(5), context: AccessContext(), now: start)
        let show = try await sandbox.run("show", "1", "--no-plot")
        #expect(show.status == 0, "\(show)")
        #expect(show.stdout.contains("\nCorrected × 1.0257, -0.15 kg (the sensor's calibration; raw = (kg − offset) ÷ scale)\n"), "\(show)")
        let json = try await sandbox.run("show", "1", "--json")
        #expect(json.stdout.contains("\"correction_scale\" : 1.0257"), "\(json)")
        #expect(json.stdout.contains("\"correction_offset_kg\" : -0.154"), "\(json)")
    }
}
