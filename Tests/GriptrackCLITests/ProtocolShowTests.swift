import Foundation
import GripTestSupport
import Testing

/// Issue 30: `show` reads a recording against a protocol, as an endurance hold, and against the athlete's body weight.
@Suite("show --protocol, --endurance and body weight")
struct ProtocolShowTests {
    @Test("show --protocol matches each planned rep: six done, the seventh of 7x missed, time in the band of --max-kg")
    func protocolMatch() async throws {
        let sandbox = try CLISandbox()
        defer { sandbox.cleanUp() }
        #expect(try await sandbox.run("replay", sandbox.capture("repeaters"), "--save").status == 0)
        let result = try await sandbox.run("show", "1", "--no-plot", "--protocol", "repeaters 7x 7:3 @80%", "--max-kg", "27")
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains(
            "\nProtocol repeaters 7x 7:3 @80%: 6 done, 0 short, 1 missed of 7 reps; target band 20.2–22.9 kg\n"), "\(result)")
        #expect(result.stdout.contains("\n    7    1  right  missed       —       —        —\n"), "\(result)")
        struct Shown: Decodable {
            struct Match: Decodable {
                struct Rep: Decodable { var status: String; var inBandPercent: Double? }
                var reps: [Rep]
                var missed: Int
                var inBandLeftOut: String?
            }
            var protocolMatch: Match
        }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        // A built-in by name, without the athlete's max: statuses, and why there is no time in band.
        let json = try decoder.decode(
            Shown.self, from: Data(try await sandbox.run("show", "1", "--protocol", "repeaters", "--json").stdout.utf8))
        #expect(json.protocolMatch.reps.map(\.status) == Array(repeating: "done", count: 6))
        #expect(json.protocolMatch.reps.allSatisfy { $0.inBandPercent == nil })
        #expect(json.protocolMatch.inBandLeftOut
            == "time in band not computed: give the athlete's max for this hand and grip (--max-kg)")
    }

    @Test("show --protocol with a mistake exits 2 naming the column; --max-kg needs --protocol")
    func protocolUsage() async throws {
        let sandbox = try CLISandbox()
        defer { sandbox.cleanUp() }
        let bad = try await sandbox.run("show", "1", "--protocol", "repeaters 6x 7-3")
        #expect(bad.status == 2)
        #expect(bad.stderr.hasPrefix(
            "Error: --protocol \"repeaters 6x 7-3\": column 14: \"7-3\": write work and rest with a colon, e.g. 7:3.\n"),
            "\(bad)")
        let lonely = try await sandbox.run("show", "1", "--max-kg", "30")
        #expect(lonely.status == 2)
        #expect(lonely.stderr.hasPrefix("Error: --max-kg sets a protocol's band; add --protocol.\n"), "\(lonely)")
        // A negative max is a value out of range, not a missing value; record, show and label say it alike.
        let max = try await sandbox.run("record", "--replay", sandbox.capture("repeaters"), "--speed", "max")
        #expect(max.status == 2 && max.stderr.contains("give realtime or a factor such as 10"), "\(max)")
        for command in [["show", "1", "--protocol", "repeaters 6x 7:3"], ["label", "1"], ["record", "--protocol", "repeaters 6x 7:3"]] {
            let negative = try await sandbox.run(command + ["--max-kg", "-20"])
            #expect(negative.status == 2, "\(command): \(negative)")
            #expect(negative.stderr.hasPrefix("Error: --max-kg -20.0 kg is outside 1–500 kg: give the athlete's max"),
                    "\(command): \(negative)")
        }
    }

    @Test("with a body weight, show gives MVC and MVC-7 as % of it, and --critical-force CF and W′ per body weight")
    func bodyWeight() async throws {
        let sandbox = try CLISandbox()
        defer { sandbox.cleanUp() }
        #expect(try await sandbox.run("replay", sandbox.capture("critical-force"), "--save").status == 0)
        #expect(try await sandbox.run("label", "1", "--body-weight-kg", "64").status == 0)
        let result = try await sandbox.run("show", "1", "--no-plot", "--critical-force")
        #expect(result.status == 0, "\(result)")
        let figures = result.stdout.split(separator: "\n")[3]
        #expect(figures.hasPrefix("MVC "), "\(result)")
        #expect(figures.contains(" % of body weight), MVC-7 (best 7 s mean) "), "\(result)")
        // CF 16.16 kg of 64 kg.
        #expect(result.stdout.contains("\nCF 25 % of body weight, W′ "), "\(result)")
        #expect(result.stdout.contains(", W′/CF "), "\(result)")
    }

    @Test("show --endurance: a hold still loaded when the capture ends has no time to failure")
    func enduranceStillHolding() async throws {
        let sandbox = try CLISandbox()
        defer { sandbox.cleanUp() }
        #expect(try await sandbox.run("replay", sandbox.capture("endurance-loaded"), "--save").status == 0)
        let result = try await sandbox.run("show", "1", "--no-plot", "--endurance")
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.hasSuffix("\nEndurance: still holding when the recording ended (peak 7.6 kg)\n"), "\(result)")
    }
}

extension ProtocolShowTests {
    @Test("trends --athlete --hand keeps one athlete's hand: Ana's left-hand best, not Ben's")
    func trendsPerAthleteAndHand() async throws {
        let sandbox = try CLISandbox()
        defer { sandbox.cleanUp() }
        #expect(try await sandbox.run("replay", sandbox.capture("repeaters"), "--save").status == 0)
        #expect(try await sandbox.run("replay", sandbox.capture("max-pulls"), "--save").status == 0)
        // --hand as people type it: Left is left.
        #expect(try await sandbox.run("label", "1", "--athlete", "Ana", "--hand", "Left").status == 0)
        #expect(try await sandbox.run("label", "2", "--athlete", "Ben", "--hand", "left").status == 0)
        #expect(try await sandbox.run("pro", "grant").status == 0)
        let ana = try await sandbox.run("trends", "--athlete", "ana", "--hand", "left")
        #expect(ana.status == 0, "\(ana)")
        #expect(ana.stdout.hasPrefix("Personal best:  22.4 kg"), "\(ana)")
        // Without --athlete the best is anyone's, not a personal best.
        let everyone = try await sandbox.run("trends", "--no-plot")
        #expect(everyone.stdout.hasPrefix("Best:           "), "\(everyone)")
        let nobody = try await sandbox.run("trends", "--athlete", "Ana", "--hand", "right")
        #expect(nobody.stdout.hasPrefix("No scored recordings yet."), "\(nobody)")
    }
}
