import Foundation
import Glibc
import GripAnalysis
import GripDaemon
import GripEntitlements
import GripStore
import GripReplay
import GripStream
import GripTestSupport
import Testing

/// The recorder end to end: an in-process daemon replaying captures into a temporary database.
@Suite("Daemon recorder", .serialized)
struct RecorderTests {
    static let capture = "progressor-repeaters"

    /// The capture's recording as `captures/progressor-repeaters.expected.json` describes it.
    struct Expected {
        var peaks: [Double]
        var maxKg: Double
        var averageKg: Double
        /// Every decoded sample of the capture.
        var totalSamples: Int
    }

    static func expected() throws -> Expected {
        let data = try Data(contentsOf: CaptureFixtures.url("\(capture).expected.json"))
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let recordings = try #require(json["recordings"] as? [[String: Any]])
        #expect(recordings.count == 1)
        let recording = try #require(recordings.first)
        let efforts = try #require(recording["efforts"] as? [[String: Any]])
        return Expected(
            peaks: try efforts.map { try #require($0["peak_kg"] as? Double) },
            maxKg: try #require(recording["max_kg"] as? Double), averageKg: try #require(recording["avg_kg"] as? Double),
            totalSamples: try #require(json["samples"] as? Int))
    }

    /// The samples of the capture's (automatic) recording, as the replay pipeline cuts it: those from its start to
    /// its end, the same rule `griptrack replay --save` stores.
    static func passiveRecordingSamples() throws -> [StoredSample] {
        try passiveRecording().samples
    }

    /// The capture's recording as the replay pipeline cuts it, with its samples.
    static func passiveRecording() throws -> (recording: Recording, samples: [StoredSample]) {
        var all: [StoredSample] = []
        var found: (Recording, [StoredSample])?
        _ = try ReplayReport.replaying(path: CaptureFixtures.url("\(capture).btsnoop").path) { output, _ in
            switch output {
            case .sample(let micros, let kilograms):
                all.append(StoredSample(micros: micros, kilograms: kilograms))
            case .segment(.recordingEnded(let recording)):
                found = (recording, all.filter { $0.micros >= recording.startMicros && $0.micros <= recording.endMicros })
            default:
                break
            }
        }
        let (recording, samples) = try #require(found)
        return (recording, samples)
    }

    /// Fills a new database with `count` finished recordings (as another griptrack would have).
    static func prefill(_ path: String, count: Int) throws {
        let store = try RecordingStore(path: path)
        for index in 0..<count {
            _ = try store.saveRecording(
                Recording(startMicros: 0, endMicros: 1_000_000, efforts: [], falseStartsDropped: 0), samples: [],
                draft: RecordingDraft(startedAt: Date(timeIntervalSince1970: 1_700_000_000 + Double(index)), device: "test", profile: "test"),
                endedAt: Date(timeIntervalSince1970: 1_700_000_001 + Double(index)), context: AccessContext(), now: Date())
        }
    }

    /// The free plan's refusal text for the database at `path`, from the store's own admission (the one resolver).
    static func refusalText(_ path: String) throws -> String {
        let store = try RecordingStore(path: path)
        do {
            _ = try store.beginRecording(
                RecordingDraft(startedAt: Date(), device: "probe", profile: "probe"), context: AccessContext(), now: Date())
        } catch {
            if case .refused(let reason, _) = error { return reason }
            throw error
        }
        throw HarnessError("the free plan admitted a recording over its limit")
    }

    static func line(_ object: [String: Any]) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self) + "\n"
    }

    /// Reads until the capture's last entry (its DEVICE disconnected) has gone through the pipeline: with the stream
    /// kept open, every sample has then been seen and the explicit recording is still open.
    static func readWholeCapture(_ client: TestClient) async throws -> [[String: Any]] {
        let end = try await client.read(until: "DEVICE", event: "disconnected")
        #expect(end.match != nil, "the capture's disconnect never arrived")
        return end.seen
    }

    /// Reads until `count` EFFORT end messages have arrived; returns everything read.
    static func readEffortEnds(_ client: TestClient, count: Int) async throws -> [[String: Any]] {
        var seen: [[String: Any]] = []
        var ends = 0
        while ends < count {
            let next = try await client.read(until: "EFFORT", event: "end")
            seen += next.seen
            guard next.match != nil else { break }
            ends += 1
        }
        return seen
    }

    static func expectClose(_ actual: Any?, _ expected: Double, _ comment: Comment? = nil, sourceLocation: SourceLocation = #_sourceLocation) {
        let value = actual as? Double
        #expect(value.map { abs($0 - expected) < 0.0006 } == true, "\(String(describing: actual)) ≠ \(expected) \(comment?.rawValue ?? "")", sourceLocation: sourceLocation)
    }

    // MARK: - Explicit recordings

    @Test("the 4th recording's STOP carries the free plan's warning, and STATUS and PLAN the same sentence")
    func fourthRecordingWarns() async throws {
        let directory = try DaemonHarness.makeTemporaryDirectory()
        try Self.prefill(directory + "/griptrack.db", count: 3)
        let harness = try await DaemonHarness(databasePath: directory + "/griptrack.db", keepsStreamOpen: true).started()
        let client = try await harness.greetedClient()
        client.send("{\"class\":\"RECORD\"}\n")
        #expect(try await client.read(until: "RECORD").match?["event"] as? String == "started")
        client.send("{\"class\":\"WATCH\"}\n")
        _ = try await Self.readWholeCapture(client)
        client.send("{\"class\":\"STOP\"}\n")
        let saved = try #require(try await client.read(until: "STOP").match)
        #expect(saved["event"] as? String == "saved")
        client.send("{\"class\":\"STATUS\"}\n")
        let access = try #require(try await client.read(until: "STATUS").match?["access"] as? [String: Any])
        client.send("{\"class\":\"PLAN\"}\n")
        let plan = try #require(try await client.read(until: "PLAN").match)
        try await harness.stop()
        // The store's own answer for this database: the one rule (FreeTierPolicy.warning) through AccessStatus.
        let expected = try #require(
            try RecordingStore(path: harness.databasePath).accessStatus(AccessContext(), now: Date()).freeWarning)
        #expect(expected.hasPrefix("One free recording left (4 of 5 stored)"))
        #expect(saved["warning"] as? String == expected, "\(saved)")
        #expect(access["warning"] as? String == expected, "\(access)")
        #expect(plan["warning"] as? String == expected, "\(plan)")
    }

    @Test("RECORD with hand and label, then STOP, saves the capture's efforts and every sample in the store")
    func recordThenStopSaves() async throws {
        let expected = try Self.expected()
        let harness = try await DaemonHarness(keepsStreamOpen: true).started()
        let client = try await harness.greetedClient()
        client.send(try Self.line(["class": "RECORD", "hand": "left", "label": "warm-up"]))
        let started = try #require(try await client.read(until: "RECORD").match)
        #expect(started["event"] as? String == "started")
        #expect(started["saving"] as? Bool == true)
        let id = try #require(started["id"] as? Int)
        #expect(started["access"] as? String == "Free: 1 of 5 recordings stored")

        client.send("{\"class\":\"WATCH\"}\n")
        _ = try await Self.readWholeCapture(client)
        client.send("{\"class\":\"STOP\"}\n")
        let stop = try await client.read(until: "STOP")
        let saved = try #require(stop.match)
        #expect(saved["event"] as? String == "saved")
        #expect(saved["id"] as? Int == id)
        #expect(saved["efforts"] as? Int == expected.peaks.count)
        #expect(saved["samples"] as? Int == expected.totalSamples)
        Self.expectClose(saved["max_kg"], expected.maxKg)
        Self.expectClose(saved["avg_kg"], expected.averageKg)
        // The report to watchers goes out just before the reply to the requester.
        let report = try #require(stop.seen.last { $0["class"] as? String == "RECORDER" && $0["event"] as? String == "saved" })
        #expect(report["explicit"] as? Bool == true)
        #expect(report["hand"] as? String == "left")
        #expect(report["label"] as? String == "warm-up")
        try await harness.stop()

        let store = try RecordingStore(path: harness.databasePath)
        let row = try #require(try store.recording(RecordingID(rawValue: Int64(id))))
        #expect(row.state == .complete)
        #expect(row.hand == .left)
        #expect(row.label == "warm-up")
        #expect(row.sampleCount == expected.totalSamples)
        #expect(try store.samples(of: row.id).count == expected.totalSamples)
        let efforts = try store.efforts(of: row.id)
        #expect(efforts.count == expected.peaks.count)
        for (effort, peak) in zip(efforts, expected.peaks) { Self.expectClose(effort.peakKilograms, peak) }
        Self.expectClose(row.maxKilograms, expected.maxKg)
        Self.expectClose(row.averageKilograms, expected.averageKg)
    }

    @Test("a second RECORD while one is in progress gets the protocol's ERROR; STOP without a recording too")
    func recordTwiceAndStopWithoutRecording() async throws {
        let harness = try await DaemonHarness(capture: nil).started()
        let first = try harness.connect()
        let second = try harness.connect()
        _ = try await first.readMessage()
        _ = try await second.readMessage()
        second.send("{\"class\":\"STOP\"}\n")
        #expect(try await second.readMessage()?["message"] as? String == "no recording in progress")
        first.send("{\"class\":\"RECORD\",\"save\":false}\n")
        #expect(try await first.readMessage()?["event"] as? String == "started")
        second.send("{\"class\":\"RECORD\"}\n")
        let error = try #require(try await second.readMessage())
        #expect(error["class"] as? String == "ERROR")
        let message = try #require(error["message"] as? String)
        #expect(message.hasPrefix("a recording is already in progress (explicit, started by pid \(getpid()))"))
        #expect(message.hasSuffix("send STOP first"))
        second.send("{\"class\":\"RECORD\",\"hand\":\"middle\"}\n")
        #expect(try await second.readMessage()?["class"] as? String == "ERROR")
        second.send(try Self.line(["class": "RECORD", "label": String(repeating: "x", count: 201)]))
        #expect((try await second.readMessage()?["message"] as? String)?.contains("200") == true)
        // Nothing was saved: the live-only recording never had a sample.
        first.send("{\"class\":\"STOP\"}\n")
        let stop = try #require(try await first.readMessage())
        #expect(stop["event"] as? String == "discarded")
        #expect(stop["samples"] as? Int == 0)
        try await harness.stop()
        #expect(try RecordingStore(path: harness.databasePath).recordingCount() == 0)
    }

    @Test("RECORD then STOP with no pull between stores nothing and takes no slot of the free plan, and says why")
    func emptyRecordingGivesItsSlotBack() async throws {
        let harness = try await DaemonHarness(capture: nil).started()
        let client = try harness.connect()
        _ = try await client.readMessage()
        for _ in 0..<7 {
            client.send("{\"class\":\"RECORD\",\"label\":\"nothing\"}\n")
            let started = try #require(try await client.readMessage())
            #expect(started["event"] as? String == "started", "\(started)")
            #expect(started["saving"] as? Bool == true)
            client.send("{\"class\":\"STOP\"}\n")
            let stop = try #require(try await client.readMessage())
            #expect(stop["event"] as? String == "discarded")
            #expect(stop["id"] == nil)
            #expect((stop["reason"] as? String)?.hasPrefix("nothing was recorded: no pull seen") == true, "\(stop)")
        }
        try await harness.stop()
        // Seven tries, more than the free plan's five: none refused, none stored.
        #expect(try RecordingStore(path: harness.databasePath).recordingCount() == 0)
    }

    @Test("RECORD takes over the automatic recording (same row, its label), and its client's disconnect stops it")
    func recordTakesOverAndDisconnectStops() async throws {
        let harness = try await DaemonHarness(keepsStreamOpen: true).started()
        let watcher = try await harness.watcher()
        let automatic = try #require(try await watcher.read(until: "RECORDER", event: "started").match)
        #expect(automatic["explicit"] as? Bool == false)
        let id = try #require(automatic["id"] as? Int)
        do {
            let recorder = try await harness.greetedClient()
            recorder.send("{\"class\":\"RECORD\",\"hand\":\"right\",\"label\":\"repeaters\"}\n")
            let started = try #require(try await recorder.read(until: "RECORD").match)
            #expect(started["event"] as? String == "started")
            #expect(started["saving"] as? Bool == true)
            #expect(started["id"] as? Int == id, "RECORD did not keep the automatic recording's row")
            // Hang up only once the whole capture has gone through: an explicit recording that ends mid-capture
            // (its client's disconnect is a STOP) leaves the later efforts to a new automatic recording, a second row.
            let rest = try await Self.readWholeCapture(watcher)
            #expect(
                !rest.contains { $0["class"] as? String == "RECORDER" && $0["explicit"] as? Bool == false },
                "the recording was split")
        }  // the recording client hangs up here
        let saved = try #require(try await watcher.read(until: "RECORDER", event: "saved").match)
        #expect(saved["id"] as? Int == id)
        #expect(saved["explicit"] as? Bool == true)
        #expect(saved["label"] as? String == "repeaters")
        try await harness.stop()
        let rows = try RecordingStore(path: harness.databasePath).listRecordings(limit: nil).visible
        #expect(rows.map(\.state) == [.complete])
        #expect(rows.first?.hand == .right)
        #expect(rows.first?.label == "repeaters")
    }

    @Test("RECORD save:false while an automatic recording is stored leaves it alone: saving false, one automatic row")
    func liveOnlyRecordLeavesAutomaticAlone() async throws {
        let expected = try Self.expected()
        let harness = try await DaemonHarness(keepsStreamOpen: true).started()
        let watcher = try await harness.watcher()
        let automatic = try #require(try await watcher.read(until: "RECORDER", event: "started").match)
        let id = try #require(automatic["id"] as? Int)
        let viewer = try await harness.greetedClient()
        viewer.send("{\"class\":\"RECORD\",\"save\":false,\"label\":\"just looking\"}\n")
        let started = try #require(try await viewer.read(until: "RECORD").match)
        #expect(started["event"] as? String == "started")
        #expect(started["saving"] as? Bool == false)
        #expect(started["id"] == nil)
        viewer.send("{\"class\":\"STOP\"}\n")
        let stop = try #require(try await viewer.read(until: "STOP").match)
        #expect(stop["event"] as? String == "discarded")
        #expect(stop["id"] == nil)
        // The automatic recording was not stopped by the live-only view's STOP: it runs to the capture's end.
        let seen = try await Self.readWholeCapture(watcher)
        #expect(!seen.contains { $0["class"] as? String == "RECORDER" && $0["event"] as? String == "saved" })
        watcher.send("{\"class\":\"STATUS\"}\n")
        let status = try #require(try await watcher.read(until: "STATUS").match?["recorder"] as? [String: Any])
        #expect(status["explicit"] as? Bool == false)
        #expect(status["saving"] as? Bool == true)
        #expect(status["id"] as? Int == id)
        try await harness.stop()
        let store = try RecordingStore(path: harness.databasePath)
        let rows = try store.listRecordings(limit: nil).visible
        #expect(rows.map(\.id.rawValue) == [Int64(id)])
        #expect(rows.first?.label == nil)
        #expect(try store.efforts(of: RecordingID(rawValue: Int64(id))).count == expected.peaks.count)
    }

    @Test("a replay at speed 10 and one as fast as possible store the same recording: start, end and length")
    func recordingTimesFollowTheStream() async throws {
        let (recording, samples) = try Self.passiveRecording()
        let first = try #require(samples.first?.micros)
        let last = try #require(samples.last?.micros)
        var lengths: [TimeInterval] = []
        for speed in [10, Double.infinity] {
            let before = Date()
            let harness = try await DaemonHarness(speed: speed).started()
            let client = try await harness.watcher()
            _ = try await client.read(until: "RECORDER", event: "saved")
            try await harness.stop()
            let store = try RecordingStore(path: harness.databasePath)
            let row = try #require(try store.listRecordings(limit: nil).visible.first)
            let stored = try store.samples(of: row.id)
            #expect(stored.first?.micros == first, "speed \(speed)")
            #expect(stored.last?.micros == last, "speed \(speed)")
            let ended = try #require(row.endedAt)
            lengths.append(ended.timeIntervalSince(row.startedAt))
            // The start date is anchored on the wall clock (the stream instant mapped back from the sample that
            // announced the recording), so it lies around the replay's run, never in the future.
            #expect(abs(row.startedAt.timeIntervalSince(before)) < 10 && row.startedAt <= Date(), "speed \(speed)")
        }
        // The row keeps its dates to the millisecond.
        let length = Double(recording.endMicros - recording.startMicros) / 1_000_000
        for stored in lengths {
            #expect(abs(stored - length) < 0.002, "stored length \(stored) s, stream length \(length) s")
        }
        #expect(lengths.count == 2 && abs(lengths[0] - lengths[1]) < 0.002)
    }

    // MARK: - Passive recordings

    @Test("without RECORD the capture's recording is stored by itself, with exactly its samples")
    func passiveRecordingIsStored() async throws {
        let expected = try Self.expected()
        let samples = try Self.passiveRecordingSamples()
        let harness = try await DaemonHarness().started()
        let client = try await harness.watcher()
        let started = try #require(try await client.read(until: "RECORDER", event: "started").match)
        #expect(started["explicit"] as? Bool == false)
        let id = try #require(started["id"] as? Int)
        let saved = try #require(try await client.read(until: "RECORDER", event: "saved").match)
        #expect(saved["id"] as? Int == id)
        #expect(saved["efforts"] as? Int == expected.peaks.count)
        #expect(saved["samples"] as? Int == samples.count)
        client.send("{\"class\":\"STATUS\"}\n")
        let status = try #require(try await client.read(until: "STATUS").match)
        let recorder = try #require(status["recorder"] as? [String: Any])
        #expect(recorder["state"] as? String == "idle")
        #expect(recorder["refusal"] == nil)
        try await harness.stop()

        let store = try RecordingStore(path: harness.databasePath)
        let rows = try store.listRecordings(limit: nil).visible
        #expect(rows.count == 1)
        let row = try #require(rows.first)
        #expect(row.state == .complete)
        #expect(try store.samples(of: row.id) == samples)
        #expect(try store.efforts(of: row.id).map(\.peakKilograms).count == expected.peaks.count)
        Self.expectClose(row.maxKilograms, expected.maxKg)
    }

    // MARK: - The free plan

    @Test("at the free limit RECORD is refused with the policy's text, and RECORD save:false records live only")
    func freeLimitRefusesExplicit() async throws {
        let directory = try DaemonHarness.makeTemporaryDirectory()
        let database = directory + "/griptrack.db"
        try Self.prefill(database, count: 5)
        let refusal = try Self.refusalText(database)
        let expected = try Self.expected()
        let harness = try await DaemonHarness(directory: directory, keepsStreamOpen: true).started()
        let client = try await harness.greetedClient()
        client.send("{\"class\":\"RECORD\"}\n")
        let refused = try #require(try await client.readMessage())
        #expect(refused["class"] as? String == "RECORD")
        #expect(refused["event"] as? String == "refused")
        #expect(refused["reason"] as? String == refusal)
        #expect(refused["stored"] as? Int == 5)
        #expect(refused["limit"] as? Int == 5)

        client.send("{\"class\":\"RECORD\",\"save\":false}\n")
        let started = try #require(try await client.readMessage())
        #expect(started["event"] as? String == "started")
        #expect(started["saving"] as? Bool == false)
        #expect(started["id"] == nil)
        client.send("{\"class\":\"WATCH\"}\n")
        _ = try await Self.readWholeCapture(client)
        client.send("{\"class\":\"STATUS\"}\n")
        let status = try #require(try await client.read(until: "STATUS").match)
        let recorder = try #require(status["recorder"] as? [String: Any])
        #expect(recorder["state"] as? String == "recording")
        #expect(recorder["explicit"] as? Bool == true)
        #expect(recorder["saving"] as? Bool == false)
        #expect(recorder["refusal"] as? String == refusal)
        let access = try #require(status["access"] as? [String: Any])
        #expect(access["pro"] as? Bool == false)
        #expect(access["reason"] as? String == "Free: 5 of 5 recordings stored")
        #expect(access["stored"] as? Int == 5)
        client.send("{\"class\":\"STOP\"}\n")
        let stop = try #require(try await client.read(until: "STOP").match)
        #expect(stop["event"] as? String == "discarded")
        #expect(stop["efforts"] as? Int == expected.peaks.count)
        #expect(stop["samples"] as? Int == expected.totalSamples)
        try await harness.stop()
        #expect(try RecordingStore(path: database).recordingCount() == 5)
    }

    @Test("at the free limit an automatic recording is refused, the live view goes on, and STATUS shows why")
    func freeLimitRefusesPassive() async throws {
        let directory = try DaemonHarness.makeTemporaryDirectory()
        let database = directory + "/griptrack.db"
        try Self.prefill(database, count: 5)
        let refusal = try Self.refusalText(database)
        let harness = try await DaemonHarness(directory: directory).started()
        let client = try await harness.watcher()
        let refused = try #require(try await client.read(until: "RECORDER", event: "refused").match)
        #expect(refused["explicit"] as? Bool == false)
        #expect(refused["reason"] as? String == refusal)
        let end = try await client.read(until: "RECORDING", event: "end")
        #expect(end.match?["efforts"] as? Int == 6)
        #expect(!end.seen.contains { $0["class"] as? String == "RECORDER" }, "a refused recording was reported again")
        client.send("{\"class\":\"STATUS\"}\n")
        let status = try #require(try await client.read(until: "STATUS").match)
        let recorder = try #require(status["recorder"] as? [String: Any])
        #expect(recorder["refusal"] as? String == refusal)
        #expect(recorder["saving"] as? Bool == false)
        try await harness.stop()
        #expect(try RecordingStore(path: database).recordingCount() == 5)
    }

    @Test("the daemon and another writer racing for the last free slot: exactly one wins, every time")
    func lastSlotRace() async throws {
        let directory = try DaemonHarness.makeTemporaryDirectory()
        let database = directory + "/griptrack.db"
        try Self.prefill(database, count: 4)
        let harness = try await DaemonHarness(capture: nil, directory: directory).started()
        let client = try await harness.greetedClient()
        let other = try RecordingStore(path: database)
        var daemonWins = 0
        var otherWins = 0
        for round in 0..<6 {
            client.send("{\"class\":\"RECORD\"}\n")
            let otherResult: Result<RecordingID, GripStoreError> = await offPool {
                Result { () throws(GripStoreError) in
                    try other.beginRecording(
                        RecordingDraft(startedAt: Date(), device: "cli", profile: "test"), context: AccessContext(), now: Date())
                }
            }
            let reply = try #require(try await client.readMessage())
            let daemonWon = reply["event"] as? String == "started"
            if !daemonWon { #expect(reply["event"] as? String == "refused", "round \(round): \(reply)") }
            let otherWon = (try? otherResult.get()) != nil
            #expect(daemonWon != otherWon, "round \(round): daemon \(daemonWon), other writer \(otherWon)")
            #expect(try other.recordingCount() == 5, "round \(round)")
            // Free the slot again for the next round.
            if daemonWon {
                daemonWins += 1
                // No pull came (no capture): STOP discards the row, which frees the slot by itself.
                client.send("{\"class\":\"STOP\"}\n")
                let stop = try #require(try await client.readMessage())
                #expect(stop["event"] as? String == "discarded", "round \(round): \(stop)")
            }
            if case .success(let id) = otherResult {
                otherWins += 1
                try other.finishRecording(
                    id, summary: RecordingSummaryValues(endedAt: Date(), maxKilograms: nil, averageKilograms: nil), efforts: [])
                #expect(try other.delete(id))
            }
            #expect(try other.recordingCount() == 4)
        }
        #expect(daemonWins + otherWins == 6)
        try await harness.stop()
    }

    // MARK: - Pro

    @Test("PRO status, grant and revoke answer with the resolver's reason; the audit names the uid")
    func proStatusGrantRevoke() async throws {
        let harness = try await DaemonHarness(capture: nil).started()
        let client = try await harness.greetedClient()
        client.send("{\"class\":\"PRO\",\"action\":\"status\"}\n")
        let status = try #require(try await client.readMessage())
        #expect(status["class"] as? String == "PRO")
        #expect(status["pro"] as? Bool == false)
        #expect(status["reason"] as? String == "Free: 0 of 5 recordings stored")
        #expect(status["stored"] as? Int == 0)
        #expect(status["limit"] as? Int == 5)

        client.send("{\"class\":\"PRO\",\"action\":\"grant\",\"note\":\"PT partner\",\"expires\":\"2099-03-01\"}\n")
        let granted = try #require(try await client.readMessage())
        if getuid() != 0 {
            // Only root (or group griptrack-admin) may grant; the socket path is covered as root.
            #expect(granted["message"] as? String == "not authorized: granting or revoking Pro needs root or group griptrack-admin")
            try await harness.stop()
            return
        }
        #expect(granted["pro"] as? Bool == true)
        #expect(granted["reason"] as? String == "Pro: complimentary — PT partner, until 2099-03-01")
        client.send("{\"class\":\"STATUS\"}\n")
        let access = try #require(try await client.readMessage()?["access"] as? [String: Any])
        #expect(access["pro"] as? Bool == true)

        client.send("{\"class\":\"PRO\",\"action\":\"revoke\"}\n")
        let revoked = try #require(try await client.readMessage())
        #expect(revoked["pro"] as? Bool == false)

        for bad in [
            "{\"class\":\"PRO\",\"action\":\"grant\",\"expires\":\"2001-01-01\"}",
            "{\"class\":\"PRO\",\"action\":\"grant\",\"expires\":\"next week\"}",
            "{\"class\":\"PRO\",\"action\":\"upgrade\"}",
        ] {
            client.send(bad + "\n")
            #expect(try await client.readMessage()?["class"] as? String == "ERROR", "\(bad)")
        }
        try await harness.stop()
        let audit = try RecordingStore(path: harness.databasePath).auditLog().sorted { ($0.id ?? 0) < ($1.id ?? 0) }
        #expect(audit.map(\.action) == [.grant, .revoke])
        #expect(audit.allSatisfy { $0.actor == "uid 0 via griptrackd" })
    }

    // MARK: - Shutdown

    @Test("shutting down mid-recording leaves a complete row that ends at the last sample")
    func shutdownMidRecording() async throws {
        let harness = try await DaemonHarness(keepsStreamOpen: true).started()
        let client = try await harness.greetedClient()
        client.send("{\"class\":\"RECORD\"}\n")
        let id = try #require(try await client.read(until: "RECORD").match?["id"] as? Int)
        client.send("{\"class\":\"WATCH\"}\n")
        var seen = try await Self.readEffortEnds(client, count: 3)
        try await harness.stop()
        while let message = try await client.readMessage() { seen.append(message) }
        let saved = try #require(seen.last { $0["class"] as? String == "RECORDER" && $0["event"] as? String == "saved" })
        #expect(saved["id"] as? Int == id)
        let lastSeen = try #require(seen.last { $0["class"] as? String == "SAMPLES" }?["t"] as? [Double]).last

        let store = try RecordingStore(path: harness.databasePath)
        let row = try #require(try store.recording(RecordingID(rawValue: Int64(id))))
        #expect(row.state == .complete)
        #expect(row.endedAt != nil)
        let samples = try store.samples(of: row.id)
        #expect(samples.count == saved["samples"] as? Int)
        #expect(row.sampleCount == samples.count)
        let last = try #require(samples.last)
        #expect(lastSeen.map { Int64(($0 * 1_000_000).rounded()) } == last.micros, "the row does not end at the last sample")
        #expect(try store.efforts(of: row.id).count >= 3)
    }
}
