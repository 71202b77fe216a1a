import Foundation
import GripTestSupport
import GripConfig
import GripAnalysis
import GripProtocol
import Testing

/// The training screen's endpoints: the built-ins and a protocol's plan from GripAnalysis' engine (docs/web.md,
/// "Training").
@Suite("Web app: training", .serialized)
struct TrainingAPITests {
    @Test("a watch credential reads the built-ins and a plan; without credentials both are 401")
    func watchReadsProtocols() async throws {
        let web = try await WebHarness()
        #expect(try await web.request("GET", "/api/protocols").status == 401)
        #expect(try await web.request("GET", "/api/protocols/plan?text=max").status == 401)
        let watch = ["Authorization": "Bearer " + (try await web.token("watch", name: "screen"))]

        let builtIns = try await web.request("GET", "/api/protocols", headers: watch)
        #expect(builtIns.status == 200)
        let entries = try #require(builtIns.json?["protocols"] as? [[String: Any]])
        #expect(entries.map { $0["name"] as? String } == ["max", "repeaters", "cf", "rfd", "endurance"])
        #expect(entries[1]["notation"] as? String == "repeaters 6x 7:3 @80%")

        let plan = try await web.request("GET", "/api/protocols/plan?text=repeaters%202x%207:3%202%20sets%20rest%2060s%20@80%25&hand=left", headers: watch)
        #expect(plan.status == 200, "\(plan.body)")
        let json = try #require(plan.json)
        #expect(json["kind"] as? String == "repeaters")
        #expect(json["countdown_s"] as? Double == 5)
        #expect(json["start_tolerance_s"] as? Double == 1.5)
        #expect(json["target_percent"] as? [Double] == [75, 85])
        let reps = try #require(json["planned"] as? [[String: Any]])
        #expect(reps.map { $0["start_s"] as? Double } == [0, 10, 77, 87])
        #expect(reps.map { $0["set"] as? Int } == [1, 1, 2, 2])
        #expect(reps.map { $0["rest_s"] as? Double } == [3, 60, 3, 0])
        #expect(reps.map { $0["hang_s"] as? Double } == [7, 7, 7, 7])
        #expect(reps.allSatisfy { $0["hand"] as? String == "left" })
        let phases = try #require(json["phases"] as? [[String: Any]])
        #expect(phases.map { $0["phase"] as? String } == ["countdown", "hang", "rest", "hang", "rest", "hang", "rest", "hang", "done"])
        #expect(phases.map { $0["from_s"] as? Double } == [0, 5, 12, 15, 22, 82, 89, 92, 99])
        try await web.stop()
    }

    @Test("GET /api/protocols lists griptrack.toml's [protocols] after the built-ins, with their notation")
    func configuredProtocolsAreListed() async throws {
        let config = try GriptrackConfig.parse(
            "[protocols]\n\"board repeaters\" = \"repeaters 6x 7:3 @80%\"\nsprint = \"rfd 5x rest 30s\"\n", file: "griptrack.toml")
        let web = try await WebHarness(protocols: config.protocols)
        let watch = ["Authorization": "Bearer " + (try await web.token("watch", name: "screen"))]
        let listed = try await web.request("GET", "/api/protocols", headers: watch)
        #expect(listed.status == 200)
        let entries = try #require(listed.json?["protocols"] as? [[String: Any]])
        #expect(entries.map { $0["name"] as? String } == ["max", "repeaters", "cf", "rfd", "endurance", "board repeaters", "sprint"])
        #expect(entries.map { $0["source"] as? String } == Array(repeating: "built-in", count: 5) + ["config", "config"])
        #expect(entries[5]["notation"] as? String == "repeaters 6x 7:3 @80%")
        #expect(entries[6]["kind"] as? String == "rfd")
        // The chooser asks for a configured protocol's plan by its notation.
        let plan = try await web.request("GET", "/api/protocols/plan?text=rfd%205x%20rest%2030s", headers: watch)
        #expect(plan.json?["reps"] as? Int == 5, "\(plan.body)")
        try await web.stop()
    }

    @Test("notation the engine cannot read is a 400 with its column; too long is a 400 before parsing")
    func badNotation() async throws {
        let web = try await WebHarness()
        let watch = ["Authorization": "Bearer " + (try await web.token("watch", name: "screen"))]
        let bad = try await web.request("GET", "/api/protocols/plan?text=repeaters%206x%207:x", headers: watch)
        #expect(bad.status == 400)
        #expect(bad.json?["error"] as? String == #"protocol: column 14: "7:x" is not work:rest; write seconds, e.g. 7:3"#)
        let long = try await web.request(
            "GET", "/api/protocols/plan?text=repeaters" + String(repeating: "%20", count: 200) + "6x", headers: watch)
        #expect(long.status == 400)
        #expect(long.json?["error"] as? String == "protocol: at most 200 characters, got 211")
        #expect(try await web.request("GET", "/api/protocols/plan", headers: watch).status == 400)
        let hand = try await web.request("GET", "/api/protocols/plan?text=max&hand=both", headers: watch)
        #expect(hand.status == 400)
        #expect(hand.json?["error"] as? String == "hand is left or right, got both")
        try await web.stop()
    }

    @Test("POST /api/record with a protocol stores it with the recording; bad notation or a lone max is a 400")
    func recordStoresTheProtocol() async throws {
        let web = try await WebHarness()
        let watch = ["Authorization": "Bearer " + (try await web.token("watch", name: "screen"))]
        let record = ["Authorization": "Bearer " + (try await web.token("record", name: "coach"))]
        let bad = try await web.request("POST", "/api/record", headers: record, body: #"{"protocol":"repeaters 6x 7:x"}"#)
        #expect(bad.status == 400)
        #expect(bad.json?["error"] as? String == #"protocol "repeaters 6x 7:x": column 14: "7:x" is not work:rest; write seconds, e.g. 7:3"#)
        let lone = try await web.request("POST", "/api/record", headers: record, body: #"{"protocol_max_kg":27}"#)
        #expect(lone.status == 400)
        let stream = try HTTPTestClient(port: web.port)
        stream.send("GET", "/api/events", headers: watch)  // the replay waits for a watcher
        let started = try await web.request(
            "POST", "/api/record", headers: record, body: #"{"hand":"right","protocol":"Repeaters","protocol_max_kg":27}"#)
        #expect(started.status == 200, "\(started.body)")
        let id = try #require(started.json?["id"] as? Int, "\(started.body)")
        // A pull first: a recording stopped before any effort is not stored (it would take a free slot for nothing).
        let pulled = try await offPool {
            var events: [String] = []
            while !events.contains("EFFORT"), try stream.readSome() { events += stream.takeEvents().map(\.event) }
            return events.contains("EFFORT")
        }
        #expect(pulled)
        #expect(try await web.request("POST", "/api/stop", headers: record, body: "{}").status == 200)
        let shown = try await web.request("GET", "/api/recordings/\(id)", headers: watch)
        let recording = try #require(shown.json?["recording"] as? [String: Any], "\(shown.body)")
        #expect(recording["protocol"] as? String == "repeaters 6x 7:3 @80%")
        #expect(recording["protocol_max_kg"] as? Double == 27)
        try await web.stop()
    }

    @Test("the phases the page looks up are ProtocolCue's, at every tenth of a second of every built-in")
    func phasesAgreeWithTheCue() throws {
        for builtIn in BuiltInProtocols.all + [("alternating", "max 2x 3s rest 4s alternate"), ("short rest", "repeaters 3x 7:0")] {
            let training = try ProtocolNotation.parse(builtIn.notation)
            let plan = training.plan(firstHand: .right)
            let phases = TrainingPlanJSON.phases(plan, training: training)
            let end = (phases.last?.from ?? 0) + 3_000_000
            var time: Int64 = 0
            while time < end {
                let cue = ProtocolCue.at(time, of: plan, training: training)
                let phase = try #require(phases.last { $0.from <= time }, "\(builtIn.name) at \(time) µs")
                #expect(phase.to.map { time < $0 } ?? true, "\(builtIn.name) at \(time) µs")
                switch cue {
                case .countdown: #expect(phase.name == "countdown", "\(builtIn.name) at \(time) µs")
                case .hang(let rep, _): #expect(phase.name == "hang" && phase.rep == rep.number, "\(builtIn.name) at \(time) µs")
                case .rest(let next, _): #expect(phase.name == "rest" && phase.rep == next.number, "\(builtIn.name) at \(time) µs")
                case .done: #expect(phase.name == "done", "\(builtIn.name) at \(time) µs")
                }
                time += 100_000
            }
        }
    }
}
