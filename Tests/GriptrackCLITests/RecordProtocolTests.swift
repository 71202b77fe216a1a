import Foundation
import GripAnalysis
import GripTestSupport
import Testing

@testable import griptrack
import GripProtocol

/// `griptrack record --protocol`: the cue line and the bell, folded from stream time.
@Suite("record --protocol: cues")
struct RecordProtocolTests {
    static func state(_ notation: String, maxKg: Double? = nil) throws -> RecordState {
        var state = RecordState()
        state.run = ProtocolRun(
            name: notation, training: try ProtocolNotation.parse(notation), maxKg: maxKg, firstHand: .left)
        return state
    }

    static func samples(at seconds: Double) -> DaemonMessage { .samples(times: [seconds], kilograms: [20]) }

    @Test("countdown, HANG, REST and DONE as stream time passes; each phase change is one plain line and one bell")
    func cues() async throws {
        var state = try Self.state("repeaters 2x 10:20 alternate @80%", maxKg: 30)
        var plain: [String] = []
        for second in [100.0, 102, 105, 110, 115.5, 125, 135, 140, 146] { plain += state.apply(Self.samples(at: second)) }
        #expect(plain == [
            "GET READY  5 s · left hand first",
            "HANG  rep 1/2 · 10 s left · left hand · band 22.5–25.5 kg",
            "REST  20 s · next rep 2/2 · right hand",
            "HANG  rep 2/2 · 10 s left · right hand · band 22.5–25.5 kg",
            "DONE  every rep's time is over · Ctrl-C stops the recording",
        ])
        #expect(state.bells == 4)
    }

    @Test("the spoken cues are the web screen's words: hand first, 3 2 1, pull, rest with the next hand, done")
    func spokenCues() throws {
        var state = try Self.state("max 2x 3s rest 5s alternate")
        for second in [100.0, 102.5, 103.5, 104.5, 105.2, 108.1, 109, 110.5, 111.5, 112.5, 113.1, 116.5] {
            _ = state.apply(Self.samples(at: second))
        }
        #expect(state.phrases == [
            "left hand first", "3", "2", "1", "pull", "rest, right hand next", "3", "2", "1", "pull", "done",
        ])
        // A rest of 3 s opens with "rest" and counts only 2 and 1; one hand throughout says no hand.
        var short = try Self.state("repeaters 2x 7:3")
        for second in [100.0, 102.5, 103.5, 104.5, 105.1, 112.1, 113.5, 114.5, 115.1, 122.5] {
            _ = short.apply(Self.samples(at: second))
        }
        #expect(short.phrases == ["get ready", "3", "2", "1", "pull", "rest", "2", "1", "pull", "done"])
    }

    @Test("the full screen shows the cue under the forces")
    func screen() async throws {
        var state = try Self.state("repeaters 6x 7:3")
        _ = state.apply(Self.samples(at: 0))
        _ = state.apply(Self.samples(at: 8.2))
        let screen = RecordScreen.render(state, width: 80, height: 24)
        #expect(screen.contains("\nHANG  rep 1/6 · 4 s left\n"), "\(screen)")
    }
}

extension RecordProtocolTests {
    @Test("record --replay --protocol prints the cues in a pipe, from the countdown to DONE")
    func recordRunsTheProtocol() async throws {
        let sandbox = try CLISandbox()
        defer { sandbox.cleanUp() }
        let result = try await sandbox.run(
            "record", "--replay", sandbox.capture("repeaters-missed"), "--speed", "100", "--no-save", "--protocol",
            "repeaters", "--max-kg", "27")
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("\nGET READY  5 s · right hand first\nHANG  rep 1/6 · "), "\(result)")
        #expect(result.stdout.contains(" · band 20.2–22.9 kg\n"), "\(result)")
        #expect(result.stdout.contains("\nDONE  every rep's time is over · Ctrl-C stops the recording\n"), "\(result)")
        let refused = try await sandbox.run("record", "--protocol", "cf 24x 7:3 @80%")
        #expect(refused.status == 2)
        #expect(refused.stderr.hasPrefix("Error: --protocol \"cf 24x 7:3 @80%\": column 12: cf is all-out"), "\(refused)")
    }
}

extension RecordProtocolTests {
    @Test("record --protocol stores the protocol and its max; show scores it without --protocol, list --json has it")
    func recordStoresTheProtocol() async throws {
        let sandbox = try CLISandbox()
        defer { sandbox.cleanUp() }
        let recorded = try await sandbox.run(
            "record", "--replay", sandbox.capture("repeaters-missed"), "--speed", "100", "--protocol", "Repeaters",
            "--max-kg", "27", "--athlete", "Ana")
        #expect(recorded.status == 0, "\(recorded)")
        let list = try await sandbox.run("list", "--json")
        let row = try #require(
            (try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [String: Any])?["recordings"]
                as? [[String: Any]]).first
        // The built-in's name is stored as its notation: the recording keeps the test it ran.
        #expect(row?["protocol"] as? String == "repeaters 6x 7:3 @80%", "\(list)")
        #expect(row?["protocol_max_kg"] as? Double == 27)
        let shown = try await sandbox.run("show", "1", "--no-plot")
        #expect(shown.status == 0, "\(shown)")
        #expect(shown.stdout.contains("\nAna, protocol repeaters 6x 7:3 @80% (max 27.0 kg)\n"), "\(shown)")
        #expect(shown.stdout.contains("\nProtocol repeaters 6x 7:3 @80%: 5 done, 0 short, 1 missed of 6 reps; target band "),
                "\(shown)")
        // --protocol given again still wins over the stored one.
        let other = try await sandbox.run("show", "1", "--no-plot", "--protocol", "repeaters 7x 7:3")
        #expect(other.stdout.contains("\nProtocol repeaters 7x 7:3: 5 done, 0 short, 2 missed of 7 reps\n"), "\(other)")
        // label clears it; show then has no protocol table.
        let cleared = try await sandbox.run("label", "1", "--protocol", "")
        #expect(cleared.stdout == "Recording 1: Ana\n", "\(cleared)")
        #expect(try await sandbox.run("show", "1", "--no-plot").stdout.contains("Protocol ") == false)
    }
}

extension RecordProtocolTests {
    /// An `espeak-ng` that writes down what it was asked to say, first on PATH.
    static func fakeSpeaker(in directory: URL) throws -> (path: String, log: URL) {
        let bin = directory.appendingPathComponent("fake-bin")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        let log = directory.appendingPathComponent("spoken.txt")
        let script = bin.appendingPathComponent("espeak-ng")
        try Data("#!/bin/sh\nprintf '%s\\n' \"$*\" >> '\(log.path)'\n".utf8).write(to: script)
        chmod(script.path, 0o755)
        return (bin.path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"), log)
    }

    @Test("record --replay --protocol --speak says each cue through espeak-ng on PATH, in order; not without --speak off a terminal")
    func recordSpeaksTheCues() async throws {
        let sandbox = try CLISandbox()
        defer { sandbox.cleanUp() }
        let (path, log) = try Self.fakeSpeaker(in: sandbox.directory)
        // A capture twice as long as the run, at a pace that leaves every phrase time to be said.
        let spoken = try await sandbox.runner.run(
            ["record", "--replay", sandbox.capture("rfd-pulls"), "--speed", "4", "--no-save", "--protocol",
             "max 2x 3s rest 5s alternate", "--speak", "--db", sandbox.database, "--config", sandbox.config],
            environment: ["PATH": path])
        #expect(spoken.status == 0, "\(spoken)")
        let said = try String(contentsOf: log, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(said == ["right hand first", "3", "2", "1", "pull", "rest, left hand next", "3", "2", "1", "pull", "done"])

        try FileManager.default.removeItem(at: log)
        for flags in [[String](), ["--no-speak"]] {
            let silent = try await sandbox.runner.run(
                ["record", "--replay", sandbox.capture("rfd-pulls"), "--speed", "100", "--no-save", "--protocol", "rfd"]
                    + flags + ["--db", sandbox.database, "--config", sandbox.config],
                environment: ["PATH": path])
            #expect(silent.status == 0, "\(silent)")
            #expect(!FileManager.default.fileExists(atPath: log.path), "spoke with \(flags) and no terminal")
        }
        let missing = try await sandbox.runner.run(
            ["record", "--replay", sandbox.capture("rfd-pulls"), "--speed", "100", "--no-save", "--protocol", "rfd",
             "--speak", "--db", sandbox.database, "--config", sandbox.config],
            environment: ["PATH": "/usr/bin:/bin"])
        #expect(missing.status == 0, "\(missing)")
        #expect(missing.stderr.contains("--speak: espeak-ng is not on PATH, so the cues stay silent"), "\(missing)")
        let lonely = try await sandbox.run("record", "--speak")
        #expect(lonely.status == 2)
        #expect(lonely.stderr.contains("--speak speaks a protocol's cues; add --protocol."), "\(lonely)")
    }
}
