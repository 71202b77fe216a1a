import GripProtocol
import Testing

@testable import GripDaemon

extension DaemonMessage {
    /// The message written again from its typed payload (nil for a class this build does not know).
    var writtenAgain: String? {
        switch self {
        case .version(let payload): payload.line
        case .watch(let payload): payload.line
        case .samples(let times, let kilograms): Samples(t: times, kg: kilograms.map { Float($0) }).line
        case .effort(let payload): payload.line
        case .recording(let payload): payload.line
        case .device(let payload): payload.line
        case .recorder(let payload): payload.line
        case .record(let payload): payload.line
        case .stop(let payload): payload.line
        case .tare(let ok): TareReply(ok: ok).line
        case .pro(let payload): payload.line
        case .proImport(let payload): payload.line
        case .status(let payload): payload.line
        case .plan(let payload): payload.line
        case .list(let payload): payload.line
        case .show(let payload): payload.line
        case .label(let payload): payload.line
        case .read(let payload): payload.line
        case .stats(let payload): payload.line
        case .history(let payload): payload.line
        case .delete(let payload): payload.line
        case .web(let payload): payload.line
        case .error(let payload): payload.line
        case .unknown: nil
        }
    }
}

/// The daemon writes its lines from GripProtocol's typed messages and its clients read them back with the same
/// types (docs/protocol.md): a line read and written again is the line, byte for byte.
@Suite("Typed protocol lines")
struct TypedLinesTests {
    @Test("a replay's lines and the store's replies read back as typed messages and write the same bytes again")
    func everyLineRoundTrips() async throws {
        let harness = try await DaemonHarness(keepsStreamOpen: true).started()
        let client = try harness.connect()
        var lines: [String] = []
        func readUntil(_ prefix: String) async throws {
            while let line = await client.readLine() {
                lines.append(line)
                if line.hasPrefix(prefix) { return }
            }
            throw HarnessError("no line starting \(prefix)")
        }
        try await readUntil(#"{"class":"VERSION""#)
        client.send(#"{"class":"RECORD","hand":"left","label":"warm-up \"é\""}"# + "\n")
        try await readUntil(#"{"class":"RECORD""#)
        client.send(#"{"class":"WATCH"}"# + "\n")
        try await readUntil(#"{"class":"EFFORT","event":"end""#)
        client.send(#"{"class":"STATUS"}"# + "\n")
        try await readUntil(#"{"class":"STATUS""#)
        client.send(#"{"class":"STOP"}"# + "\n")
        try await readUntil(#"{"class":"STOP""#)
        client.send(#"{"class":"WATCH","enable":false}"# + "\n")
        try await readUntil(#"{"class":"WATCH""#)
        let stop = try #require(DaemonMessage.parse(lines.last { $0.hasPrefix(#"{"class":"STOP""#) } ?? ""))
        guard case .stop(let stopped) = stop, let id = stopped.id else {
            Issue.record("STOP did not save: \(stop)")
            return
        }
        for request in [
            #"{"class":"PLAN"}"#, #"{"class":"HISTORY"}"#, #"{"class":"PRO","action":"grant","note":"test"}"#,
            #"{"class":"PLAN"}"#, #"{"class":"LIST"}"#, #"{"class":"SHOW","id":\#(id)}"#,
            #"{"class":"READ","id":\#(id),"from":0}"#, #"{"class":"STATS"}"#, #"{"class":"HISTORY"}"#,
            #"{"class":"LABEL","id":\#(id),"athlete":"Ana","grip":"20 mm edge","edge_mm":20,"body_weight_kg":61.5}"#,
            #"{"class":"SHOW","id":999}"#, #"{"class":"DELETE","id":\#(id)}"#,
        ] {
            client.send(request + "\n")
            guard let line = await client.readLine() else { throw HarnessError("no reply to \(request)") }
            lines.append(line)
        }
        try await harness.stop()

        var classes: Set<String> = []
        for line in lines {
            let message = try #require(DaemonMessage.parse(line), "unreadable: \(line)")
            #expect(message.writtenAgain == line + "\n", "written again differently: \(line)")
            if case .unknown(let name) = message { Issue.record("unknown class \(name)") }
            classes.insert(String(line.dropFirst(10).prefix { $0 != "\"" }))
        }
        #expect(classes.isSuperset(of: [
            "VERSION", "RECORD", "WATCH", "SAMPLES", "DEVICE", "RECORDING", "EFFORT", "RECORDER", "STATUS", "STOP", "PLAN",
            "LIST", "SHOW", "READ", "STATS", "HISTORY", "LABEL", "ERROR", "DELETE", "PRO",
        ]), "\(classes.sorted())")
    }

    @Test("the typed SAMPLES form writes what the consumer's hand-written writer writes")
    func samplesWriterMatchesTypedForm() {
        var generator = SystemRandomNumberGenerator()
        for count in [0, 1, 2, 12, 100] {
            let micros = (0..<count).map { _ in Int64.random(in: -1_000...1_000_000_000_000, using: &generator) }
            let kilograms = (0..<count).map { _ in Float.random(in: -50...300, using: &generator) }
            let typed = DaemonMessage.Samples(t: micros.map(ProtocolMessage.seconds), kg: kilograms).line
            #expect(ProtocolMessage.samples(micros: micros[...], kilograms: kilograms[...]) == typed)
        }
    }

    @Test("replies the replay does not give read back and write again too: PRO import, WEB, refusals")
    func otherRepliesRoundTrip() throws {
        let lines = [
            #"{"class":"PRO","pro":true,"reason":"manual Pro override","stored":6,"limit":5}"#,
            #"{"class":"PRO","action":"import","pro":true,"reason":"App Store subscription","before":"Free: 2 of 5 recordings stored","events":[{"kind":"transaction","original_transaction_id":"2000","disposition":"applied"},{"kind":"notification","disposition":"ignored: test"}]}"#,
            #"{"class":"RECORD","event":"refused","reason":"the free plan stores 5 recordings","stored":5,"limit":5}"#,
            #"{"class":"RECORDER","event":"storage_failed","problem":"disk full","held_samples":80,"retry_s":5}"#,
            #"{"class":"RECORDER","event":"storage_recovered","committed_samples":80,"dropped_samples":0}"#,
            #"{"class":"TARE","ok":true}"#,
            #"{"class":"WEB","action":"pair","code":"K7QZ4M2P","expires":1795000600.0,"role":"record","name":"tablet","listen":"0.0.0.0:8080","scheme":"http"}"#,
            #"{"class":"WEB","action":"token","role":"watch","name":"grafana","token":"gt_abc"}"#,
            #"{"class":"WEB","action":"tokens","credentials":[{"name":"tablet","role":"record","kind":"session","created":1795000000.0,"revoked":1795000600.0}]}"#,
            #"{"class":"WEB","action":"revoke","name":"tablet","revoked":true}"#,
            #"{"class":"ERROR","message":"recording 7 is being recorded","code":"busy"}"#,
            // 1.9: an imported test's SHOW, the app's figures beside griptrack's.
            #"{"class":"SHOW","recording":{"id":3,"uuid":"1b4e28ba-2fa1-11d2-883f-0016d3cca427","started_at":1773480715.0,"ended_at":1773480722.0,"device":"Tindeq Progressor","profile":"Tindeq Progressor","state":"complete","max_kg":42.26978,"avg_kg":42.26978,"samples":658,"efforts":1},"efforts":[],"imported":{"source":"tindeq-app","file_name":"peak \"1\".csv","test_type":"peak","tested_at":"2026-03-14 09:31:55","tag":"right half crimp","figures":[{"name":"max","unit":"kg","app":42.2697786,"griptrack":42.26978,"difference":-1.0000000116860974e-06},{"name":"RFD 20–80","unit":"kg/s","app":289.86}],"reps":[{"set":1,"rep":1,"app_avg_kg":21.5,"app_peak_kg":22.25,"effort_index":0,"mean_kg":21.3,"peak_kg":22.39263}],"fields":[{"name":"comment","value":""}],"threshold_crossings":[{"time_seconds":1.058717,"weight_kilograms":3.7524884}]}}"#,
        ]
        for line in lines {
            let message = try #require(DaemonMessage.parse(line), "unreadable: \(line)")
            #expect(message.writtenAgain == line + "\n")
        }
    }
}
