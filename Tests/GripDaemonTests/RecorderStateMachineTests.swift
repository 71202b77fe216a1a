import GripAnalysis
import GripStore
import Testing

@testable import GripDaemon

/// The recorder's decisions as exact action lists: every race between RECORD and the automatic recording is an
/// input order, played here without threads.
@Suite("Recorder state machine")
struct RecorderStateMachineTests {
    typealias Machine = RecorderStateMachine
    typealias Action = Machine.Action

    static let alice = ClientReference(id: 1, pid: 101, uid: 1000)
    static let bob = ClientReference(id: 2, pid: 202, uid: 1000)
    static let row12 = RecordingID(rawValue: 12)
    static let row13 = RecordingID(rawValue: 13)
    static let reason = "Free plan keeps 5 recordings (5 of 5 used)."

    static func effort(_ start: Int64, _ end: Int64, peak: Float) -> Effort {
        Effort(
            startMicros: start, endMicros: end, durationMicros: end - start, peakKg: peak, peakMicros: start + 1,
            meanKg: peak / 2, timeToPeakMicros: 1, rfdKgPerSecond: nil, impulseKgSeconds: 1, baselineKg: 0,
            open: false, sampleCount: 10)
    }

    static func recording(_ start: Int64, _ end: Int64, _ efforts: [Effort]) -> Recording {
        Recording(startMicros: start, endMicros: end, efforts: efforts, falseStartsDropped: 0)
    }

    static let labelled = Machine.Request(client: alice, hand: .right, label: "repeaters")

    /// An automatic recording started at 1 s and stored in row 12.
    static func automatic() -> Machine {
        var machine = Machine()
        _ = machine.handle(.segment(.recordingStarted(startMicros: 1_000_000)))
        _ = machine.handle(.store(.started(row12)))
        return machine
    }

    @Test("an automatic recording follows the segmenter: admitted at its start, held after an effort, ended at its end")
    func automaticRecording() {
        var machine = Machine()
        #expect(machine.handle(.segment(.recordingStarted(startMicros: 1_000_000))) == [
            .follow(startMicros: 1_000_000), .admit(startMicros: 1_000_000, hand: nil, label: nil),
        ])
        #expect(machine.handle(.store(.started(Self.row12))) == [
            .attach(Self.row12), .publish, .report(.started(id: Self.row12, explicit: false, hand: nil, label: nil)),
        ])
        #expect(machine.sampleRoute == .inside)
        let effort = Self.effort(3_000_000, 9_000_000, peak: 22)
        #expect(machine.handle(.segment(.effortStarted(startMicros: 3_000_000))).isEmpty)
        #expect(machine.handle(.segment(.effortEnded(effort))).isEmpty)
        #expect(machine.sampleRoute == .held)
        #expect(machine.handle(.segment(.effortStarted(startMicros: 12_000_000))) == [.releaseHeld(through: nil)])
        #expect(machine.sampleRoute == .inside)
        _ = machine.handle(.segment(.effortEnded(effort)))
        let recording = Self.recording(1_000_000, 11_000_000, [effort])
        let finished = Machine.Finished(
            id: Self.row12, explicit: false, efforts: 1, maxKilograms: 22, averageKilograms: 22)
        #expect(machine.handle(.segment(.recordingEnded(recording))) == [
            .releaseHeld(through: 11_000_000), .finish(.init(id: Self.row12, recording: recording)), .forget,
        ])
        #expect(machine.handle(.store(.committed(Self.row12))) == [.publish, .report(.finished(finished))])
        #expect(machine.state == .idle)
        #expect(machine.sampleRoute == Machine.SampleRoute.none)
    }

    @Test("RECORD while the automatic recording runs takes it over: same row, its hand and label, nothing held back")
    func recordTakesOverRunningRecording() {
        var machine = Self.automatic()
        _ = machine.handle(.segment(.effortEnded(Self.effort(2_000_000, 3_000_000, peak: 20))))
        #expect(machine.handle(.record(Self.labelled, save: true)) == [.pipeline(.beginRecording(token: 1))])
        #expect(machine.handle(.applied(.began(token: 1, adopted: true))) == [
            .releaseHeld(through: nil), .describe(Self.row12, hand: .right, label: "repeaters"), .publish,
            .reply(Self.alice, .started(saving: true, id: Self.row12)),
            .report(.started(id: Self.row12, explicit: true, hand: .right, label: "repeaters")),
        ])
        #expect(machine.sampleRoute == .inside)
        #expect(machine.status.explicit && machine.status.saving && machine.status.id == 12)
        // Its client hangs up: the recording ends, explicit, with the label.
        #expect(machine.handle(.clientGone(id: Self.alice.id)) == [
            .log("Recording stopped: its client disconnected"), .pipeline(.endRecording(token: 2)),
        ])
        let recording = Self.recording(1_000_000, 20_000_000, [])
        #expect(machine.handle(.segment(.recordingEnded(recording))) == [
            .finish(.init(id: Self.row12, recording: recording)), .forget,
        ])
        #expect(machine.handle(.store(.committed(Self.row12))) == [
            .publish,
            .report(.finished(.init(id: Self.row12, explicit: true, hand: .right, label: "repeaters", efforts: 0))),
        ])
        #expect(machine.handle(.applied(.ended(token: 2))).isEmpty)
    }

    @Test("RECORD while the automatic recording is starting claims it for the RECORD's own row: one row")
    func recordWhileStarting() {
        var machine = Machine()
        // The segmenter has opened it, but its recordingStarted is still on the way when RECORD arrives.
        #expect(machine.handle(.record(Self.labelled, save: true)) == [
            .admit(startMicros: nil, hand: .right, label: "repeaters"),
        ])
        #expect(machine.handle(.store(.started(Self.row13))) == [.pipeline(.beginRecording(token: 1))])
        #expect(machine.handle(.segment(.recordingStarted(startMicros: 1_000_000))) == [
            .follow(startMicros: 1_000_000), .attach(Self.row13),
        ])
        #expect(machine.handle(.applied(.began(token: 1, adopted: true))) == [
            .publish, .reply(Self.alice, .started(saving: true, id: Self.row13)),
            .report(.started(id: Self.row13, explicit: true, hand: .right, label: "repeaters")),
        ])
        #expect(machine.state == .recording(.init(
            startMicros: 1_000_000, kind: .explicit(Self.labelled), row: .stored(Self.row13))))
    }

    @Test("RECORD while the automatic recording is ending: it is saved as it ended, RECORD gets a new row")
    func recordWhileEnding() {
        var machine = Self.automatic()
        #expect(machine.handle(.record(Self.labelled, save: true)) == [.pipeline(.beginRecording(token: 1))])
        // The segmenter closed it (session gap) before the consumer applied RECORD.
        let ended = Self.recording(1_000_000, 5_000_000, [])
        #expect(machine.handle(.segment(.recordingEnded(ended))) == [
            .finish(.init(id: Self.row12, recording: ended)), .forget,
        ])
        #expect(machine.handle(.store(.committed(Self.row12))) == [
            .publish, .report(.finished(.init(id: Self.row12, explicit: false, efforts: 0))),
        ])
        #expect(machine.handle(.segment(.recordingStarted(startMicros: 400_000_000))) == [
            .follow(startMicros: 400_000_000),
        ])
        #expect(machine.handle(.applied(.began(token: 1, adopted: false))) == [
            .admit(startMicros: 400_000_000, hand: .right, label: "repeaters"),
        ])
        #expect(machine.handle(.store(.started(Self.row13))) == [
            .attach(Self.row13), .publish, .reply(Self.alice, .started(saving: true, id: Self.row13)),
            .report(.started(id: Self.row13, explicit: true, hand: .right, label: "repeaters")),
        ])
    }

    @Test("RECORD after STOP was sent waits for the end, then starts a new recording")
    func recordAfterStop() {
        var machine = Self.automatic()
        #expect(machine.handle(.stop(Self.bob)) == [.pipeline(.endRecording(token: 1))])
        #expect(machine.handle(.record(Self.labelled, save: true)).isEmpty)
        let ended = Self.recording(1_000_000, 5_000_000, [])
        #expect(machine.handle(.segment(.recordingEnded(ended))) == [
            .finish(.init(id: Self.row12, recording: ended)), .forget,
            .admit(startMicros: nil, hand: .right, label: "repeaters"),
        ])
        let finished = Machine.Finished(id: Self.row12, explicit: false, efforts: 0)
        #expect(machine.handle(.store(.committed(Self.row12))) == [
            .publish, .report(.finished(finished)), .reply(Self.bob, .stopped(finished)),
        ])
        #expect(machine.handle(.store(.started(Self.row13))) == [.pipeline(.beginRecording(token: 2))])
    }

    @Test("a live-only RECORD does not touch the stored automatic recording, and says so")
    func liveOnlyLeavesAutomaticAlone() {
        var machine = Self.automatic()
        #expect(machine.handle(.record(Self.labelled, save: false)) == [
            .liveView(open: true), .publish, .reply(Self.alice, .started(saving: false, id: nil)),
            .report(.started(id: nil, explicit: true, hand: .right, label: "repeaters")),
        ])
        #expect(machine.followed?.explicit == false)
        #expect(machine.followed?.id == Self.row12)
        let effort = Self.effort(2_000_000, 3_000_000, peak: 20)
        _ = machine.handle(.segment(.effortEnded(effort)))
        let finished = Machine.Finished(
            id: nil, explicit: true, hand: .right, label: "repeaters", efforts: 1, maxKilograms: 20,
            averageKilograms: 20, liveView: true)
        #expect(machine.handle(.stop(Self.alice)) == [
            .liveView(open: false), .publish, .report(.finished(finished)), .reply(Self.alice, .stopped(finished)),
        ])
        // The automatic recording goes on, still automatic and stored.
        #expect(machine.followed?.explicit == false)
        #expect(machine.followed?.id == Self.row12)
        #expect(machine.sampleRoute == .held)
    }

    @Test("a live-only RECORD with nothing stored open is an explicit recording that never gets a row")
    func liveOnlyWithNothingOpen() {
        var machine = Machine()
        #expect(machine.handle(.record(Self.labelled, save: false)) == [.pipeline(.beginRecording(token: 1))])
        #expect(machine.handle(.segment(.recordingStarted(startMicros: 2_000_000))) == [.follow(startMicros: 2_000_000)])
        #expect(machine.handle(.applied(.began(token: 1, adopted: false))) == [
            .publish, .reply(Self.alice, .started(saving: false, id: nil)),
            .report(.started(id: nil, explicit: true, hand: .right, label: "repeaters")),
        ])
        #expect(machine.sampleRoute == .inside)
        #expect(machine.status.explicit && !machine.status.saving)
        #expect(machine.handle(.stop(Self.alice)) == [.pipeline(.endRecording(token: 2))])
        let ended = Self.recording(2_000_000, 9_000_000, [])
        let finished = Machine.Finished(id: nil, explicit: true, hand: .right, label: "repeaters", efforts: 0)
        #expect(machine.handle(.segment(.recordingEnded(ended))) == [
            .publish, .report(.finished(finished)), .reply(Self.alice, .stopped(finished)), .forget,
        ])
    }

    @Test("at the free limit RECORD is refused and the refused automatic recording goes on unstored")
    func refusedRecord() {
        var machine = Machine()
        _ = machine.handle(.segment(.recordingStarted(startMicros: 1_000_000)))
        #expect(machine.handle(.store(.refused(reason: Self.reason, stored: 5))) == [
            .publish, .report(.refused(explicit: false, reason: Self.reason)),
        ])
        #expect(machine.handle(.record(Self.labelled, save: true)) == [
            .admit(startMicros: 1_000_000, hand: .right, label: "repeaters"),
        ])
        #expect(machine.handle(.store(.refused(reason: Self.reason, stored: 5))) == [
            .publish, .reply(Self.alice, .refused(reason: Self.reason, stored: 5)),
        ])
        let ended = Self.recording(1_000_000, 5_000_000, [])
        // Nothing stored and nobody asked: no report.
        #expect(machine.handle(.segment(.recordingEnded(ended))) == [.publish, .forget])
    }

    @Test("a second RECORD gets the protocol's error; STOP without a recording too; the stream's end answers waiters")
    func errorsAndStreamEnd() {
        var machine = Machine()
        #expect(machine.handle(.stop(Self.bob)) == [.reply(Self.bob, .error("no recording in progress"))])
        _ = machine.handle(.record(Self.labelled, save: true))
        _ = machine.handle(.store(.started(Self.row13)))
        #expect(machine.handle(.record(.init(client: Self.bob), save: true)) == [
            .reply(Self.bob, .error(
                "a recording is already in progress (explicit, started by pid 101); send STOP first")),
        ])
        #expect(machine.handle(.streamEnded) == [
            .discardRow(Self.row13),
            .reply(Self.alice, .error("no recording started: the device stream ended before the recording started")),
            .publish,
        ])
        #expect(machine.handle(.record(.init(client: Self.bob), save: true)) == [
            .reply(Self.bob, .error("no device stream: the replay has ended, so there is nothing to record")),
        ])
    }

    @Test("an explicit recording before the first sample opens with it and is stored from there")
    func explicitBeforeFirstSample() {
        var machine = Machine()
        _ = machine.handle(.record(Self.labelled, save: true))
        _ = machine.handle(.store(.started(Self.row13)))
        #expect(machine.handle(.applied(.began(token: 1, adopted: false))) == [
            .publish, .reply(Self.alice, .started(saving: true, id: Self.row13)),
            .report(.started(id: Self.row13, explicit: true, hand: .right, label: "repeaters")),
        ])
        #expect(machine.sampleRoute == Machine.SampleRoute.none)
        #expect(machine.handle(.segment(.recordingStarted(startMicros: 0))) == [
            .follow(startMicros: 0), .attach(Self.row13), .publish,
        ])
        #expect(machine.sampleRoute == .inside)
        // STOP with no sample reaching the segmenter's end: the outcome finishes it.
        #expect(machine.handle(.stop(Self.alice)) == [.pipeline(.endRecording(token: 2))])
        #expect(machine.handle(.applied(.ended(token: 2))) == [
            .finish(.init(id: Self.row13, recording: nil)), .forget,
        ])
    }

    @Test("the RECORD's client hanging up before the consumer answered ends the recording right after it starts")
    func disconnectWhileBeginning() {
        var machine = Self.automatic()
        _ = machine.handle(.record(Self.labelled, save: true))
        #expect(machine.handle(.clientGone(id: Self.alice.id)) == [
            .log("Recording stopped: its client disconnected"), .pipeline(.endRecording(token: 2)),
        ])
        #expect(machine.handle(.applied(.began(token: 1, adopted: true))) == [
            .describe(Self.row12, hand: .right, label: "repeaters"), .publish,
            .reply(Self.alice, .started(saving: true, id: Self.row12)),
            .report(.started(id: Self.row12, explicit: true, hand: .right, label: "repeaters")),
        ])
        guard case .ending(_, let end, _) = machine.state, end.token == 2 else {
            Issue.record("not ending: \(machine.state)")
            return
        }
        let ended = Self.recording(1_000_000, 3_000_000, [])
        #expect(machine.handle(.segment(.recordingEnded(ended))) == [
            .finish(.init(id: Self.row12, recording: ended)), .forget,
        ])
    }

    @Test("shutdown finishes the open recording with what it has and answers a waiting RECORD")
    func shutdownFinishesAndAnswers() {
        var machine = Self.automatic()
        _ = machine.handle(.segment(.effortEnded(Self.effort(2_000_000, 3_000_000, peak: 20))))
        #expect(machine.handle(.shutdown) == [
            .log("Recording still open at shutdown; finishing it with the samples received"),
            .releaseHeld(through: Int64.min), .finish(.init(id: Self.row12, recording: nil)), .forget,
        ])
        // The row's commit outcome comes next; the machine has ended beneath it.
        let unfinished = Machine.Finished(id: Self.row12, explicit: false, efforts: 0)
        #expect(machine.state == .committing(.init(finished: unfinished, stops: []), then: .streamEnded))
        #expect(machine.handle(.store(.committed(Self.row12))) == [.publish, .report(.finished(unfinished))])
        #expect(machine.state == .streamEnded)
        var waiting = Machine()
        _ = waiting.handle(.record(Self.labelled, save: true))
        _ = waiting.handle(.store(.started(Self.row13)))
        #expect(waiting.handle(.shutdown) == [
            .discardRow(Self.row13),
            .reply(Self.alice, .error("no recording started: the daemon is shutting down")),
        ])
    }

    @Test("a failed commit is reported without the row id, so nobody is told it was saved")
    func commitFailure() {
        var machine = Self.automatic()
        _ = machine.handle(.stop(Self.bob))
        let ended = Self.recording(1_000_000, 2_000_000, [])
        _ = machine.handle(.segment(.recordingEnded(ended)))
        let unsaved = Machine.Finished(id: nil, explicit: false, efforts: 0)
        #expect(machine.handle(.store(.commitFailed(Self.row12, "disk I/O error"))) == [
            .publish, .report(.finished(unsaved)), .reply(Self.bob, .stopped(unsaved)),
        ])
    }

    @Test("STOPs wait in the end they wait for, a RECORD in the ending it waits for; a client that leaves takes both")
    func stopsAndDeferredLiveInTheEnding() {
        var machine = Self.automatic()
        let carol = ClientReference(id: 3, pid: 303, uid: 1000)
        #expect(machine.handle(.stop(Self.bob)) == [.pipeline(.endRecording(token: 1))])
        #expect(machine.handle(.stop(Self.alice)).isEmpty)
        #expect(machine.handle(.record(.init(client: carol), save: true)).isEmpty)
        #expect(machine.handle(.record(Self.labelled, save: true)) == [
            .reply(Self.alice, .error(
                "a recording is already in progress (explicit, started by pid 303); send STOP first")),
        ])
        let open = Machine.Open(startMicros: 1_000_000, kind: .automatic(holding: false), row: .stored(Self.row12))
        #expect(machine.state == .ending(
            open, .init(token: 1, stops: [Self.bob, Self.alice]), deferred: .init(request: .init(client: carol), save: true)))
        #expect(machine.handle(.clientGone(id: Self.bob.id)).isEmpty)
        #expect(machine.handle(.clientGone(id: carol.id)).isEmpty)
        #expect(machine.state == .ending(open, .init(token: 1, stops: [Self.alice]), deferred: nil))
        let ended = Self.recording(1_000_000, 5_000_000, [])
        #expect(machine.handle(.segment(.recordingEnded(ended))) == [
            .finish(.init(id: Self.row12, recording: ended)), .forget,
        ])
        let finished = Machine.Finished(id: Self.row12, explicit: false, efforts: 0)
        #expect(machine.state == .committing(.init(finished: finished, stops: [Self.alice]), then: .idle))
        #expect(machine.handle(.store(.committed(Self.row12))) == [
            .publish, .report(.finished(finished)), .reply(Self.alice, .stopped(finished)),
        ])
        #expect(machine.state == .idle)
    }

    @Test("a live-only view wraps the state beside it, and outlives the automatic recording it watched")
    func liveViewWrapsTheStateBesideIt() {
        var machine = Self.automatic()
        _ = machine.handle(.record(Self.labelled, save: false))
        let stored = Machine.Open(startMicros: 1_000_000, kind: .automatic(holding: false), row: .stored(Self.row12))
        let view = Machine.LiveView(request: Self.labelled)
        #expect(machine.state == .viewing(view, beside: .recording(stored)))
        let ended = Self.recording(1_000_000, 5_000_000, [])
        #expect(machine.handle(.segment(.recordingEnded(ended))) == [
            .finish(.init(id: Self.row12, recording: ended)), .forget,
        ])
        let finished = Machine.Finished(id: Self.row12, explicit: false, efforts: 0)
        #expect(machine.state == .committing(.init(finished: finished, stops: []), then: .viewing(view, beside: .idle)))
        #expect(machine.handle(.store(.committed(Self.row12))) == [.publish, .report(.finished(finished))])
        #expect(machine.state == .viewing(view, beside: .idle))
        #expect(machine.status.recording && machine.status.explicit && !machine.status.saving)
        #expect(machine.handle(.record(.init(client: Self.bob), save: true)) == [
            .reply(Self.bob, .error(
                "a recording is already in progress (explicit, started by pid 101); send STOP first")),
        ])
    }

    @Test("a RECORD whose late row is refused withdraws its recording: closed again, held back like an automatic one, unreported")
    func withdrawnRecording() {
        var machine = Self.automatic()
        _ = machine.handle(.record(Self.labelled, save: true))
        let ended = Self.recording(1_000_000, 5_000_000, [])
        _ = machine.handle(.segment(.recordingEnded(ended)))
        _ = machine.handle(.store(.committed(Self.row12)))
        _ = machine.handle(.segment(.recordingStarted(startMicros: 400_000_000)))
        #expect(machine.handle(.applied(.began(token: 1, adopted: false))) == [
            .admit(startMicros: 400_000_000, hand: .right, label: "repeaters"),
        ])
        #expect(machine.handle(.store(.refused(reason: Self.reason, stored: 5))) == [
            .pipeline(.endRecording(token: 2)), .publish, .reply(Self.alice, .refused(reason: Self.reason, stored: 5)),
        ])
        let withdrawn = Machine.Open(
            startMicros: 400_000_000, kind: .withdrawn(Self.labelled, holding: false), row: .refused)
        #expect(machine.state == .ending(withdrawn, .init(token: 2), deferred: nil))
        #expect(machine.status.recording && !machine.status.explicit)
        _ = machine.handle(.segment(.effortEnded(Self.effort(401_000_000, 402_000_000, peak: 20))))
        #expect(machine.sampleRoute == .held)
        let last = Self.recording(400_000_000, 402_000_000, [])
        #expect(machine.handle(.segment(.recordingEnded(last))) == [
            .releaseHeld(through: 402_000_000), .publish, .forget,
        ])
        #expect(machine.state == .idle)
    }

    @Test("an explicit recording never holds samples back, whatever the efforts do")
    func explicitNeverHolds() {
        var open = Machine.Open(startMicros: 0, kind: .explicit(Self.labelled))
        open.hold(true)
        #expect(open.kind == .explicit(Self.labelled))
        #expect(!open.holding)
    }
}
