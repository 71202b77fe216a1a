import Foundation
import GripTestSupport
import Testing

/// Issue 30's checks on the simulated protocol sessions (`griptrack simulate`, captures/), each built so its answer
/// is known.
@Suite("simulated protocol sessions")
struct ProtocolSessionsTests {
    static func shown<Value: Decodable>(_ sandbox: CLISandbox, _ arguments: String..., as type: Value.Type) async throws -> Value {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return try decoder.decode(type, from: Data(try await sandbox.run(arguments).stdout.utf8))
    }

    @Test("the CF test built to a 15 kg plateau: CF within 1.5 % of it, W′ within 3 % of the impulse built above it")
    func criticalForcePlateau() async throws {
        let sandbox = try CLISandbox()
        defer { sandbox.cleanUp() }
        #expect(try await sandbox.run("replay", sandbox.capture("cf-plateau"), "--save").status == 0)
        struct Shown: Decodable {
            struct Critical: Decodable { var criticalForceKg: Double; var wPrimeKgS: Double; var repsLeftOut: Int }
            var criticalForce: Critical
        }
        let json = try await Self.shown(sandbox, "show", "1", "--critical-force", "--json", as: Shown.self)
        // Forces are raw: the plateau is 15 kg above a 0.2 kg baseline (CaptureCatalog.criticalForcePulls).
        #expect(abs(json.criticalForce.criticalForceKg - 15.2) / 15.2 < 0.015, "\(json.criticalForce)")
        // Built: 7 s × 25 kg · e^(−i/3) above the plateau in rep i.
        let built = (0..<24).reduce(0.0) { $0 + 7 * 25 * exp(-Double($1) / 3) }
        #expect(abs(json.criticalForce.wPrimeKgS - built) / built < 0.03, "\(json.criticalForce.wPrimeKgS) vs \(built)")
        #expect(json.criticalForce.repsLeftOut == 0)
    }

    @Test("the repeaters set with its fourth rep missed: rep 4 missed, the rest done")
    func repeatersMissedRep() async throws {
        let sandbox = try CLISandbox()
        defer { sandbox.cleanUp() }
        #expect(try await sandbox.run("replay", sandbox.capture("repeaters-missed"), "--save").status == 0)
        struct Shown: Decodable {
            struct Match: Decodable {
                struct Rep: Decodable { var status: String; var effort: Int? }
                var reps: [Rep]
            }
            var protocolMatch: Match
        }
        let json = try await Self.shown(sandbox, "show", "1", "--protocol", "repeaters", "--json", as: Shown.self)
        #expect(json.protocolMatch.reps.map(\.status) == ["done", "done", "done", "missed", "done", "done"])
        #expect(json.protocolMatch.reps.map(\.effort) == [1, 2, 3, nil, 4, 5])
    }

    @Test("the endurance hold let go 37 s after it began fails there")
    func enduranceToFailure() async throws {
        let sandbox = try CLISandbox()
        defer { sandbox.cleanUp() }
        #expect(try await sandbox.run("replay", sandbox.capture("endurance-failure"), "--save").status == 0)
        struct Shown: Decodable {
            struct Endurance: Decodable { var timeToFailureS: Double?; var peakKg: Double }
            var endurance: Endurance
        }
        let json = try await Self.shown(sandbox, "show", "1", "--endurance", "--json", as: Shown.self)
        // Built: the rise from 3 s crosses the on-level about 0.35 s in; the release at 40 s falls under 20 % of the
        // peak about 0.3 s in.
        let failure = try #require(json.endurance.timeToFailureS)
        #expect((36.5...37.5).contains(failure), "\(failure)")
        #expect(abs(json.endurance.peakKg - 16.3) < 0.6)
    }

    @Test("RFD pulls at 10 Hz (Entralpi): efforts and peaks, and RFD left out with the rate it needs")
    func rfdAtTenHertz() async throws {
        let sandbox = try CLISandbox()
        defer { sandbox.cleanUp() }
        let capture = CaptureFixtures.url("entralpi-rfd.btsnoop").path
        #expect(try await sandbox.run("replay", capture, "--save").status == 0)
        let result = try await sandbox.run("show", "1", "--no-plot")
        #expect(result.stdout.contains("\n3 efforts, max 26."), "\(result)")
        #expect(result.stdout.contains(
            "\nRFD 20–80 % not computed: the device sends 10 samples a second; it needs 50\n"
                + "RFD over 100 and 200 ms not computed: the device sends 10 samples a second; a 200 ms window needs 20\n"),
            "\(result)")
    }
}

extension ProtocolSessionsTests {
    @Test("label --body-weight-from-hang: the median of seconds 5–10 of the hold; a short pull is refused with exit 5")
    func bodyWeightFromHang() async throws {
        let sandbox = try CLISandbox()
        defer { sandbox.cleanUp() }
        #expect(try await sandbox.run("replay", sandbox.capture("endurance-failure"), "--save").status == 0)
        #expect(try await sandbox.run("replay", sandbox.capture("rfd-pulls"), "--save").status == 0)
        let measured = try await sandbox.run("label", "1", "--athlete", "Ana", "--body-weight-from-hang", "1", "--json")
        #expect(measured.status == 0, "\(measured)")
        struct Labelled: Decodable {
            struct Item: Decodable { var bodyWeightKg: Double?; var athlete: String? }
            var recording: Item
        }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        let json = try decoder.decode(Labelled.self, from: Data(measured.stdout.utf8))
        // Built: 0.3 kg + 16 kg fading by 30 % over 36 s, read 8.4–13.4 s into the capture: 15.4 kg in the middle.
        let weight = try #require(json.recording.bodyWeightKg)
        #expect(abs(weight - 15.4) < 0.3, "\(weight)")
        #expect(json.recording.athlete == "Ana")
        let short = try await sandbox.run("label", "1", "--body-weight-from-hang", "2")
        #expect(short.status == 5, "\(short)")
        #expect(short.stderr.hasPrefix("griptrack: no body weight from recording 2: the hang lasted 0."), "\(short)")
        #expect(short.stderr.hasSuffix(" s; hang still for 10 s\n"), "\(short)")
    }
}
