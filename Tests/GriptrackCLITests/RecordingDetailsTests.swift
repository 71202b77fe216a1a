import Foundation
import GripProtocol
import GripTestSupport
import Testing

@testable import griptrack

/// What a person says about a recording (hand, label) comes back wherever the recording is shown, and a recording can
/// be read as an all-out test for critical force.
@Suite("Recording details in list and show")
struct RecordingDetailsTests {
    @Test("record --hand --label: list, list --json, show and show --json show both")
    func handAndLabelAreShown() async throws {
        let sandbox = try CLISandbox()
        defer { sandbox.cleanUp() }
        let record = try await sandbox.run(
            "record", "--replay", sandbox.capture("repeaters"), "--speed", "1000", "--hand", "right", "--label", "test")
        #expect(record.status == 0, "\(record)")
        #expect(try await sandbox.run("list").stdout.contains("  right hand, “test”\n"))
        struct Listed: Decodable {
            struct Item: Decodable { var hand: String?; var label: String? }
            var recordings: [Item]
        }
        let list = try JSONDecoder().decode(Listed.self, from: Data(try await sandbox.run("list", "--json").stdout.utf8))
        #expect(list.recordings.first?.hand == "right" && list.recordings.first?.label == "test")
        let show = try await sandbox.run("show", "1", "--no-plot")
        #expect(show.stdout.split(separator: "\n").dropFirst().first == "right hand, “test”", "\(show)")
        struct Shown: Decodable { var recording: Listed.Item }
        let json = try JSONDecoder().decode(Shown.self, from: Data(try await sandbox.run("show", "1", "--json").stdout.utf8))
        #expect(json.recording.hand == "right" && json.recording.label == "test")
    }

    @Test("record --athlete --grip --edge-mm --body-weight-kg: stored, shown, filtered and changed by label")
    func setupIsStoredShownAndEditable() async throws {
        let sandbox = try CLISandbox()
        defer { sandbox.cleanUp() }
        let record = try await sandbox.run(
            "record", "--replay", sandbox.capture("repeaters"), "--speed", "1000", "--hand", "left", "--athlete", "Ana",
            "--grip", "half crimp", "--edge-mm", "20", "--body-weight-kg", "61.5")
        #expect(record.status == 0, "\(record)")
        #expect(try await sandbox.run("replay", sandbox.capture("repeaters"), "--save").status == 0)
        let who = "Ana (61.5 kg), left hand, half crimp, 20 mm edge"
        #expect(try await sandbox.run("show", "1", "--no-plot").stdout.split(separator: "\n").dropFirst().first.map(String.init) == who)
        let filtered = try await sandbox.run("list", "--athlete", "ana", "--hand", "left", "--grip", "Half Crimp")
        #expect(filtered.stdout.split(separator: "\n").count == 2 && filtered.stdout.hasSuffix("  \(who)\n"), "\(filtered)")
        #expect(try await sandbox.run("list", "--hand", "right").stdout == "No recordings match right hand.\n")

        let changed = try await sandbox.run("label", "1", "--hand", "right", "--grip", "", "--label", "test")
        #expect(changed.stdout == "Recording 1: Ana (61.5 kg), right hand, 20 mm edge, “test”\n", "\(changed)")
        struct Shown: Decodable {
            struct Item: Decodable {
                var hand: String?; var label: String?; var athlete: String?; var grip: String?
                var edgeMm: Double?; var bodyWeightKg: Double?
            }
            var recording: Item
        }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        let json = try decoder.decode(Shown.self, from: Data(try await sandbox.run("show", "1", "--json").stdout.utf8))
        #expect(json.recording.hand == "right" && json.recording.label == "test" && json.recording.athlete == "Ana")
        #expect(json.recording.grip == nil && json.recording.edgeMm == 20 && json.recording.bodyWeightKg == 61.5)
        #expect(try await sandbox.run("label", "7", "--grip", "open").status == 1)
    }

    @Test("show --critical-force reads the simulated 24 × 7:3 test: CF from reps 19–24, the cut first rep left out")
    func criticalForceOfTheSimulatedTest() async throws {
        let sandbox = try CLISandbox()
        defer { sandbox.cleanUp() }
        #expect(try await sandbox.run("replay", sandbox.capture("critical-force"), "--save").status == 0)
        let result = try await sandbox.run("show", "1", "--critical-force", "--no-plot")
        #expect(result.status == 0, "\(result)")
        // The capture's last six rep means (captures/progressor-critical-force.expected.json) average 16.16 kg.
        #expect(result.stdout.contains("\nCritical force: 16.2 kg (mean of reps 19–24, 6 averaged), "), "\(result)")
        #expect(result.stdout.contains("\nW′: "))
        #expect(result.stdout.contains("\n1 rep cut by the stream left out (not a whole contraction)\n"))
        struct Shown: Decodable {
            struct Critical: Decodable { var criticalForceKg: Double; var wPrimeKgS: Double; var repsLeftOut: Int }
            var criticalForce: Critical
        }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        let json = try decoder.decode(
            Shown.self, from: Data(try await sandbox.run("show", "1", "--critical-force", "--json").stdout.utf8))
        #expect(abs(json.criticalForce.criticalForceKg - 16.163) < 0.01)
        #expect(json.criticalForce.wPrimeKgS > 0 && json.criticalForce.repsLeftOut == 1)
    }

    @Test("show --critical-force on a recording that is no all-out test exits 1 with the reason")
    func criticalForceRefused() async throws {
        let sandbox = try CLISandbox()
        defer { sandbox.cleanUp() }
        #expect(try await sandbox.run("replay", sandbox.capture("repeaters"), "--save").status == 0)
        let result = try await sandbox.run("show", "1", "--critical-force")
        #expect(result.status == 1)
        #expect(result.stderr == "griptrack: no critical force: the recording has 6 efforts; critical force needs an "
            + "all-out test of at least 12 reps (24 × 7:3 is the published one)\n")
    }
}

extension RecordingDetailsTests {
    @Test("show: no MVC-7 from pulls under 7 s, saying why; windowed RFD at 80 Hz; a 2 Hz WH-C06 says why it has none")
    func sustainedAndWindowedFigures() async throws {
        let sandbox = try CLISandbox()
        defer { sandbox.cleanUp() }
        #expect(try await sandbox.run("replay", sandbox.capture("max-pulls"), "--save").status == 0)
        let fast = try await sandbox.run("show", "1", "--no-plot")
        // Three pulls of 4.4–4.9 s: the best 7 s of the trace would be a pull and its rest.
        let figures = fast.stdout.split(separator: "\n")[2]
        #expect(!fast.stdout.contains("MVC-7 (best 7 s mean)"), "\(fast)")
        #expect(fast.stdout.contains("\nMVC-7 not computed: no pull was held for 7 s\n"), "\(fast)")
        #expect(figures.contains("best RFD 0–100 ms ") && figures.contains(", 0–200 ms "), "\(fast)")
        struct Shown: Decodable {
            struct Effort: Decodable { var rfd_100ms_kg_s: Double?; var open_start: Bool }
            var efforts: [Effort]
        }
        let json = try JSONDecoder().decode(Shown.self, from: Data(try await sandbox.run("show", "1", "--json").stdout.utf8))
        #expect(json.efforts.filter { !$0.open_start }.allSatisfy { $0.rfd_100ms_kg_s != nil }, "\(json)")

        #expect(try await sandbox.plain([
            "replay", CaptureFixtures.url("whc06-hangs.btsnoop").path, "--save", "--db", sandbox.database,
            "--config", sandbox.config]).status == 0)
        let slow = try await sandbox.run("show", "2", "--no-plot")
        #expect(slow.stdout.contains("\nRFD over 100 and 200 ms not computed: the device sends 2 samples a second; "
            + "a 200 ms window needs 20\n"), "\(slow)")
    }
}

extension RecordingDetailsTests {
    // The import comparison printed "-0.00 kg" where griptrack and the app agree to the hundredth.
    @Test("a difference that rounds to nothing prints with a plus sign, never as -0.00", arguments: [
        (-0.004, "+0.00 kg"), (-0.0, "+0.00 kg"), (0.004, "+0.00 kg"), (-0.006, "-0.01 kg"), (0.123, "+0.12 kg"),
    ])
    func noNegativeZero(value: Double, text: String) {
        #expect(ImportComparison.signed(value, "kg") == text)
    }
}

extension RecordingDetailsTests {
    // show's title for an imported test carried the absolute path the file was imported from.
    @Test("an imported test is titled with the file's own name, not the path it was imported from")
    func importedTitleNamesTheFile() async throws {
        let sandbox = try CLISandbox()
        defer { sandbox.cleanUp() }
        let fixture = CaptureFixtures.repositoryRoot.appendingPathComponent("Tests/GripImportTests/Fixtures/endurance.csv").path
        #expect(try await sandbox.run("import", fixture).status == 0)
        let show = try await sandbox.run("show", "1", "--no-plot")
        #expect(show.stdout.contains("(endurance.csv)\n"), "\(show)")
        #expect(!show.stdout.contains(CaptureFixtures.repositoryRoot.path), "\(show)")
    }
}
