import Foundation
import GripTestSupport
import Testing

/// `griptrack record` and `status` against a scripted protocol-1.1 daemon: the requests the CLI sends, what it
/// prints, and its exit codes, compared verbatim.
@Suite("griptrack record and status, client side", .serialized, .timeLimit(.minutes(2)))
struct RecordClientTests {
    static let status = #"{"class":"STATUS","device":{"source":"bluez","state":"streaming","profile":"progressor","address":"F0:0D:CA:FE:12:34","name":"Progressor_1234","battery_mv":3921},"frames":{"total":10,"decoded":10,"malformed":0,"dropped":0},"ring":{"dropped":0,"oversized":0},"fanout_dropped":0,"clients":{"connected":1,"watching":0},"recorder":{"state":"idle","explicit":false},"access":{"pro":false,"reason":"Free: 3 of 5 recordings stored","stored":3,"limit":5}}"#
    static let started = #"{"class":"RECORD","event":"started","saving":true,"id":12,"access":"Free: 3 of 5 recordings stored"}"#
    static let stream = [
        #"{"class":"WATCH","enable":true}"#,
        #"{"class":"SAMPLES","t":[1.0,1.1],"kg":[0.3,12.5]}"#,
        #"{"class":"EFFORT","event":"start","start":1.05}"#,
        #"{"class":"SAMPLES","t":[1.2,4.3],"kg":[31.2,0.2]}"#,
        #"{"class":"EFFORT","event":"end","start":1.05,"end":4.25,"peak_kg":31.2,"peak_time":1.2,"mean_kg":24.0,"time_to_peak":0.15,"impulse_kg_s":76.8,"baseline_kg":0.3,"open":false}"#,
        #"{"class":"DEVICE","event":"battery","battery_mv":3921}"#,
        #"{"class":"DEVICE","event":"state","state":"disconnected","address":"F0:0D:CA:FE:12:34"}"#,
        #"{"class":"FUTURE","what":"ignored"}"#,
    ]
    static let saved = #"{"class":"STOP","event":"saved","id":12,"samples":4210,"efforts":1,"max_kg":31.2,"avg_kg":31.2}"#

    /// The happy path: STATUS, RECORD, WATCH (stream), STOP (saved).
    static func happy(stop: String = saved) -> ScriptedDaemon.Replies {
        { requestClass, _ in
            switch requestClass {
            case "STATUS": [status]
            case "RECORD": [started]
            case "WATCH": stream
            case "STOP": [stop]
            default: [#"{"class":"ERROR","message":"unexpected"}"#]
            }
        }
    }

    @Test("the STOP reply's free-plan warning is printed after the saved recording, as the daemon words it")
    func stopWarning() async throws {
        let warning = "One free recording left (4 of 5 stored): the next fills the free plan, and the one after is "
            + "refused. Pro keeps every recording and adds trends, comparisons and downloads."
        let stop = #"{"class":"STOP","event":"saved","id":12,"samples":4210,"efforts":1,"max_kg":31.2,"avg_kg":31.2,"warning":""#
            + warning + #""}"#
        let daemon = try ScriptedDaemon(replies: Self.happy(stop: stop))
        let runner = try CLIRunner()
        defer { runner.cleanUp() }
        let result = try await runner.run(["record", "--socket", daemon.socketPath, "--duration", "0.3"])
        daemon.finish()
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.hasSuffix("Saved recording #12: 1 effort, max 31.2 kg, average 31.2 kg\n\(warning)\n"), "\(result)")
    }

    @Test("record --duration asks STATUS, RECORD, WATCH, STOP and prints each effort and the saved recording")
    func durationStops() async throws {
        let daemon = try ScriptedDaemon(replies: Self.happy())
        let runner = try CLIRunner()
        defer { runner.cleanUp() }
        let result = try await runner.run([
            "record", "--socket", daemon.socketPath, "--duration", "0.3", "--hand", "left", "--label", "warm-up"])
        daemon.finish()
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout == """
            Recording #12 (Free: 3 of 5 recordings stored). Ctrl-C stops it.
            effort 1: peak 31.2 kg, mean 24.0 kg, 3.2 s
            device: disconnected (F0:0D:CA:FE:12:34)
            Saved recording #12: 1 effort, max 31.2 kg, average 31.2 kg

            """)
        #expect(result.stderr == "")
        #expect(daemon.requests == [
            #"{"class":"STATUS"}"#,
            #"{"class":"RECORD","hand":"left","label":"warm-up","save":true}"#,
            #"{"class":"WATCH","enable":true}"#,
            #"{"class":"STOP"}"#,
        ])
    }

    @Test("record --json --immediate asks for WATCH pace immediate; a 1.2 daemon is told it needs 1.3 before RECORD")
    func immediateWatch() async throws {
        let daemon = try ScriptedDaemon(
            greeting: #"{"class":"VERSION","release":"0.2.0","proto_major":1,"proto_minor":3}"#, replies: Self.happy())
        let runner = try CLIRunner()
        defer { runner.cleanUp() }
        let result = try await runner.run(["record", "--socket", daemon.socketPath, "--duration", "0.3", "--json", "--immediate"])
        daemon.finish()
        #expect(result.status == 0, "\(result)")
        #expect(daemon.requests.contains(#"{"class":"WATCH","enable":true,"pace":"immediate"}"#), "\(daemon.requests)")

        let older = try ScriptedDaemon(
            greeting: #"{"class":"VERSION","release":"0.1.0","proto_major":1,"proto_minor":2}"#, replies: Self.happy())
        let refused = try await runner.run(["record", "--socket", older.socketPath, "--json", "--immediate"])
        older.finish()
        #expect(refused.status == 4, "\(refused)")
        #expect(refused.stderr.contains("this command needs 1.3"), "\(refused)")
        #expect(!older.requests.contains { $0.contains("RECORD") }, "a recording was started before the version check")

        let plain = try await runner.run(["record", "--immediate"])
        #expect(plain.status == 2, "--immediate without --json is a usage error: \(plain)")
    }

    @Test("Ctrl-C does not kill record: it sends STOP, waits for the answer and exits 0")
    func interruptStops() async throws {
        let daemon = try ScriptedDaemon(replies: Self.happy())
        let runner = try CLIRunner()
        defer { runner.cleanUp() }
        let process = Process()
        process.executableURL = runner.executable
        process.arguments = ["record", "--socket", daemon.socketPath]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        // A record that misses the signal must fail this test, not hang the whole run: killed after 20 s.
        let watchdog = DispatchWorkItem { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        DispatchQueue.global().asyncAfter(deadline: .now() + 20, execute: watchdog)
        defer { watchdog.cancel() }
        var text = ""
        while !text.contains("Ctrl-C stops it.") {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        process.interrupt()
        text += String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        daemon.finish()
        #expect(process.terminationReason == .exit)
        #expect(process.terminationStatus == 0)
        #expect(text.hasSuffix("Saved recording #12: 1 effort, max 31.2 kg, average 31.2 kg\n"), "\(text)")
        #expect(daemon.requests.last == #"{"class":"STOP"}"#)
    }

    @Test("--json prints the daemon's event lines, then the STOP result, one object per line")
    func jsonLines() async throws {
        let daemon = try ScriptedDaemon(replies: Self.happy())
        let runner = try CLIRunner()
        defer { runner.cleanUp() }
        let result = try await runner.run(["record", "--socket", daemon.socketPath, "--duration", "0.3", "--json"])
        daemon.finish()
        #expect(result.status == 0, "\(result)")
        let expected = [Self.started, Self.stream[2], Self.stream[4], Self.stream[5], Self.stream[6], Self.saved]
        #expect(result.stdout == expected.map { $0 + "\n" }.joined())
    }

    @Test("--no-save sends save:false and reports what was discarded")
    func noSave() async throws {
        let discarded = #"{"class":"STOP","event":"discarded","samples":4210,"efforts":1}"#
        let daemon = try ScriptedDaemon(replies: Self.happy(stop: discarded))
        let runner = try CLIRunner()
        defer { runner.cleanUp() }
        let result = try await runner.run(["record", "--socket", daemon.socketPath, "--duration", "0.3", "--no-save"])
        daemon.finish()
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.hasSuffix("Not saved (--no-save): 1 effort, max 31.2 kg, average 31.2 kg\n"), "\(result)")
        #expect(daemon.requests.dropFirst().first == #"{"class":"RECORD","save":false}"#)
    }

    @Test("a refusal by the free plan exits 3 with the reason and the --no-save hint, and sends no WATCH")
    func refused() async throws {
        let reason = "Free plan keeps 5 recordings (5 of 5 used). Delete one with `griptrack delete <id>` or upgrade to Pro."
        let daemon = try ScriptedDaemon { requestClass, _ in
            switch requestClass {
            case "STATUS": [Self.status]
            case "RECORD": [#"{"class":"RECORD","event":"refused","reason":"\#(reason)","stored":5,"limit":5}"#]
            default: nil
            }
        }
        let runner = try CLIRunner()
        defer { runner.cleanUp() }
        let result = try await runner.run(["record", "--socket", daemon.socketPath])
        daemon.finish()
        #expect(result.status == 3)
        #expect(result.stdout == "")
        #expect(result.stderr == "griptrack: \(reason)\nRun `griptrack record --no-save` for a live-only view.\n")
        #expect(daemon.requests.count == 2)
    }

    @Test("the daemon going away mid-recording is reported and exits 4")
    func daemonGoesAway() async throws {
        let daemon = try ScriptedDaemon { requestClass, _ in
            switch requestClass {
            case "STATUS": [Self.status]
            case "RECORD": [Self.started]
            default: nil  // WATCH: hang up
            }
        }
        let runner = try CLIRunner()
        defer { runner.cleanUp() }
        let result = try await runner.run(["record", "--socket", daemon.socketPath])
        daemon.finish()
        #expect(result.status == 4)
        #expect(result.stderr == "griptrack: griptrackd went away during the recording (it stopped or crashed); what "
            + "was recorded up to then is kept by the daemon. Check `systemctl status griptrack`.\n")
    }

    @Test("a recording the daemon ends itself is reported with what it saved, and exits 1")
    func daemonEndsRecording() async throws {
        let ended = #"{"class":"RECORDER","event":"saved","id":12,"explicit":true,"samples":4210,"efforts":1}"#
        let daemon = try ScriptedDaemon { requestClass, _ in
            switch requestClass {
            case "STATUS": [Self.status]
            case "RECORD": [Self.started]
            case "WATCH": Self.stream + [ended]
            default: nil
            }
        }
        let runner = try CLIRunner()
        defer { runner.cleanUp() }
        let result = try await runner.run(["record", "--socket", daemon.socketPath])
        daemon.finish()
        #expect(result.status == 1)
        #expect(result.stdout.hasSuffix("Saved recording #12: 1 effort, max 31.2 kg, average 31.2 kg\n"), "\(result)")
        #expect(result.stderr
            == "griptrack: griptrackd ended the recording itself (the device stream ended or the daemon is stopping).\n")
    }

    @Test("an ERROR answer to RECORD is printed as the daemon said it, exit 1")
    func recordError() async throws {
        let message = "a recording is already in progress (explicit, started by pid 123); send STOP first"
        let daemon = try ScriptedDaemon { requestClass, _ in
            requestClass == "STATUS" ? [Self.status] : [#"{"class":"ERROR","message":"\#(message)"}"#]
        }
        let runner = try CLIRunner()
        defer { runner.cleanUp() }
        let result = try await runner.run(["record", "--socket", daemon.socketPath])
        daemon.finish()
        #expect(result.status == 1)
        #expect(result.stderr == "griptrack: \(message)\n")
    }

    @Test("a refused connection exits 4 with the daemon's text and how to join group griptrack")
    func notAuthorized() async throws {
        let refusal = "not authorized: uid 1000 is not root and not in group griptrack; add the user to it "
            + "(`usermod -aG griptrack USER`, then log in again)"
        let daemon = try ScriptedDaemon(greeting: #"{"class":"ERROR","message":"\#(refusal)"}"#) { _, _ in nil }
        let runner = try CLIRunner()
        defer { runner.cleanUp() }
        let result = try await runner.run(["record", "--socket", daemon.socketPath])
        daemon.finish()
        #expect(result.status == 4)
        #expect(result.stderr == "griptrack: griptrackd refused the connection: \(refusal). Join group griptrack "
            + "(`sudo usermod -aG griptrack tester`, then log in again), or use `griptrack record --direct` / `--replay FILE`.\n")
    }

    @Test("status for a refused user says the daemon runs and refused them, not that it is not running")
    func statusWhenRefused() async throws {
        let refusal = "not authorized: uid 1000 is not root and not in group griptrack; add the user to it "
            + "(`usermod -aG griptrack USER`, then log in again)"
        let daemon = try ScriptedDaemon(greeting: #"{"class":"ERROR","message":"\#(refusal)"}"#) { _, _ in nil }
        let runner = try CLIRunner()
        defer { runner.cleanUp() }
        let result = try await runner.run(["status", "--socket", daemon.socketPath])
        daemon.finish()
        #expect(result.status == 4)
        #expect(result.stdout.hasPrefix("Daemon:    running on \(daemon.socketPath), but it refused this user\n"), "\(result)")
        #expect(!result.stdout.contains("not running"), "\(result)")
        #expect(result.stderr.contains("griptrackd refused the connection"), "\(result)")
    }

    @Test("a protocol 1.0 daemon is told apart: record needs 1.1, exit 4")
    func oldDaemon() async throws {
        let daemon = try ScriptedDaemon(
            greeting: #"{"class":"VERSION","release":"0.1.0","proto_major":1,"proto_minor":0}"#) { _, _ in nil }
        let runner = try CLIRunner()
        defer { runner.cleanUp() }
        let result = try await runner.run(["record", "--socket", daemon.socketPath])
        daemon.finish()
        #expect(result.status == 4)
        #expect(result.stderr == "griptrack: griptrackd 0.1.0 speaks protocol 1.0; this command needs 1.1. "
            + "Update griptrackd to the same release as griptrack.\n")
        #expect(daemon.requests.isEmpty)
    }

    @Test("without a daemon, record exits 4 and says how to start it or record without it")
    func noDaemon() async throws {
        let runner = try CLIRunner()
        defer { runner.cleanUp() }
        let path = runner.home.appendingPathComponent("none.sock").path
        let result = try await runner.run(["record", "--socket", path])
        #expect(result.status == 4)
        #expect(result.stderr == "griptrack: griptrackd is not running (no socket at \(path)): start it with "
            + "`sudo systemctl start griptrack`, or use `griptrack record --direct` / `--replay FILE`\n")
    }

    @Test("record's usage errors exit 2 and say what to type instead", arguments: [
        (["--replay", "x.btsnoop", "--direct"], "--replay and --direct cannot be combined: pick one source."),
        (["--socket", "/tmp/s", "--replay", "x.btsnoop"],
         "--socket attaches to a running griptrackd; --replay and --direct run their own. Drop one."),
        (["--speed", "10"], "--speed needs --replay FILE."),
        (["--duration", "0"], "--duration must be a number of seconds above 0, e.g. 60."),
        (["--hand", "middle"],
         "The value 'middle' is invalid for '--hand <hand>'. Please provide one of 'left', 'right' or 'both'."),
        (["--edge-mm", "0.5"], "--edge-mm 0.5 mm is outside 1–100 mm."),
        (["--body-weight-kg", "400"], "--body-weight-kg 400.0 kg is outside 15–250 kg."),
        (["--label", String(repeating: "x", count: 201)], "--label is 201 bytes; at most 200 are allowed."),
        (["--label", "a\tb"], "--label has a control character (U+0009) at character 2; a label is one line of text."),
    ])
    func usage(_ arguments: [String], message: String) async throws {
        let runner = try CLIRunner()
        defer { runner.cleanUp() }
        let result = try await runner.run(["record"] + arguments)
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("Error: \(message)\n"), "\(result)")
    }

    @Test("status shows daemon, device, recording and plan from STATUS")
    func status() async throws {
        let daemon = try ScriptedDaemon { requestClass, _ in requestClass == "STATUS" ? [Self.status] : nil }
        let runner = try CLIRunner()
        defer { runner.cleanUp() }
        let result = try await runner.run(["status", "--socket", daemon.socketPath])
        daemon.finish()
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout == """
            Daemon:    running, griptrackd 0.1.0 (protocol 1.1) on \(daemon.socketPath)
            Device:    streaming, Progressor_1234 F0:0D:CA:FE:12:34, battery 3.92 V, source bluez
            Recording: idle
            Plan:      Free: 3 of 5 recordings stored

            """)
    }

    @Test("status shows the daemon's sync: rows waiting and the last failure (protocol 1.4)")
    func statusSync() async throws {
        let withSync = Self.status.dropLast() + #","sync":{"pending_rows":7,"last_attempt_at":1795000000.5,"failures":2,"last_error":"Could not connect to PostgreSQL at griptrack@db:5432/griptrack","next_push_s":4.0}}"#
        let daemon = try ScriptedDaemon { requestClass, _ in requestClass == "STATUS" ? [String(withSync)] : nil }
        let runner = try CLIRunner()
        defer { runner.cleanUp() }
        let result = try await runner.run(["status", "--socket", daemon.socketPath])
        daemon.finish()
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("""
            Plan:      Free: 3 of 5 recordings stored
            Sync:      7 outbox rows waiting, last attempt failed (2 in a row): Could not connect to PostgreSQL at griptrack@db:5432/griptrack

            """), "\(result)")
    }

    @Test("status --json has the daemon, device, recording and plan objects")
    func statusJSON() async throws {
        let daemon = try ScriptedDaemon { requestClass, _ in requestClass == "STATUS" ? [Self.status] : nil }
        let runner = try CLIRunner()
        defer { runner.cleanUp() }
        let result = try await runner.run(["status", "--socket", daemon.socketPath, "--json"])
        daemon.finish()
        #expect(result.status == 0, "\(result)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let daemonObject = try #require(object["daemon"] as? [String: Any])
        #expect(daemonObject["running"] as? Bool == true)
        #expect(daemonObject["proto"] as? String == "1.1")
        let device = try #require(object["device"] as? [String: Any])
        #expect(device["address"] as? String == "F0:0D:CA:FE:12:34")
        #expect(device["battery_mv"] as? Int == 3921)
        #expect((object["recording"] as? [String: Any])?["state"] as? String == "idle")
        let plan = try #require(object["plan"] as? [String: Any])
        #expect(plan["reason"] as? String == "Free: 3 of 5 recordings stored")
        #expect(plan["stored"] as? Int == 3)
    }

    @Test("status without a daemon shows the personal database's plan, says the daemon is down, exits 4")
    func statusDaemonDown() async throws {
        let sandbox = try CLISandbox()
        defer { sandbox.cleanUp() }
        try await sandbox.run("replay", sandbox.capture("repeaters"), "--save")
        let path = sandbox.directory.appendingPathComponent("none.sock").path
        let result = try await sandbox.run("status", "--socket", path)
        #expect(result.status == 4)
        #expect(result.stdout == """
            Daemon:    not running (\(path))
            Plan:      Free: no Pro subscription (personal database \(sandbox.database); the daemon is not running)
                       Free: 1 of 5 recordings stored

            """)
        #expect(result.stderr == "griptrack: griptrackd is not running (no socket at \(path)): start it with "
            + "`sudo systemctl start griptrack`, or use `griptrack record --direct` / `--replay FILE`\n")

        let json = try await sandbox.run("status", "--socket", path, "--json")
        #expect(json.status == 4)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect((object["daemon"] as? [String: Any])?["running"] as? Bool == false)
        let local = try #require(object["local_plan"] as? [String: Any])
        #expect(local["stored"] as? Int == 1)
        #expect(local["pro"] as? Bool == false)
    }
}
