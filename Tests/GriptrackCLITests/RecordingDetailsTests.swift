import Foundation
import Testing

/// What a person says about a recording (hand, label) comes back wherever the recording is shown, and a recording can
/// be read as an all-out test for critical force.
@Suite("Recording details in list and show")
struct RecordingDetailsTests {
    @Test("record --hand --label: list, list --json, show and show --json show both")
    func handAndLabelAreShown() throws {
        let sandbox = try CLISandbox()
        defer { sandbox.cleanUp() }
        let record = try sandbox.run(
            "record", "--replay", sandbox.capture("repeaters"), "--speed", "1000", "--hand", "right", "--label", "test")
        #expect(record.status == 0, "\(record)")
        #expect(try sandbox.run("list").stdout.contains("  right hand, “test”\n"))
        struct Listed: Decodable {
            struct Item: Decodable { var hand: String?; var label: String? }
            var recordings: [Item]
        }
        let list = try JSONDecoder().decode(Listed.self, from: Data(try sandbox.run("list", "--json").stdout.utf8))
        #expect(list.recordings.first?.hand == "right" && list.recordings.first?.label == "test")
        let show = try sandbox.run("show", "1", "--no-plot")
        #expect(show.stdout.split(separator: "\n").dropFirst().first == "right hand, “test”", "\(show)")
        struct Shown: Decodable { var recording: Listed.Item }
        let json = try JSONDecoder().decode(Shown.self, from: Data(try sandbox.run("show", "1", "--json").stdout.utf8))
        #expect(json.recording.hand == "right" && json.recording.label == "test")
    }

    @Test("show --critical-force reads the simulated 24 × 7:3 test: CF from reps 19–24, the cut first rep left out")
    func criticalForceOfTheSimulatedTest() throws {
        let sandbox = try CLISandbox()
        defer { sandbox.cleanUp() }
        #expect(try sandbox.run("replay", sandbox.capture("critical-force"), "--save").status == 0)
        let result = try sandbox.run("show", "1", "--critical-force", "--no-plot")
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
            Shown.self, from: Data(try sandbox.run("show", "1", "--critical-force", "--json").stdout.utf8))
        #expect(abs(json.criticalForce.criticalForceKg - 16.163) < 0.01)
        #expect(json.criticalForce.wPrimeKgS > 0 && json.criticalForce.repsLeftOut == 1)
    }

    @Test("show --critical-force on a recording that is no all-out test exits 1 with the reason")
    func criticalForceRefused() throws {
        let sandbox = try CLISandbox()
        defer { sandbox.cleanUp() }
        #expect(try sandbox.run("replay", sandbox.capture("repeaters"), "--save").status == 0)
        let result = try sandbox.run("show", "1", "--critical-force")
        #expect(result.status == 1)
        #expect(result.stderr == "griptrack: no critical force: the recording has 6 efforts; critical force needs an "
            + "all-out test of at least 12 reps (24 × 7:3 is the published one)\n")
    }
}
