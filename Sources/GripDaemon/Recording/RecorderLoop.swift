import Foundation
import Glibc
import GripSystem
import GripAnalysis
import GripProtocol
import GripStore
import GripStream
import Logging

/// The samples of the recording the state machine follows, as the shell keeps them. Owned by the recorder thread.
private final class FollowedSamples {
    /// The recording's first instant (stream µs), from the segmenter.
    let startMicros: Int64
    /// Samples inside the recording so far, and how many of them went to the store.
    var count = 0
    var stored = 0
    /// Samples the machine holds back (after an automatic recording's last effort) until the segmenter decides.
    var held: [StoredSample] = []
    /// The stored row's writer; nil for a recording that is not stored.
    var writer: ChunkWriter?
    var id: RecordingID?

    init(startMicros: Int64) {
        self.startMicros = startMicros
    }

    /// What STOP and RECORDER report: the stored samples when stored, else those counted.
    var reported: Int { writer != nil ? stored : count }
}

/// The recorder thread's I/O shell (see `DaemonRecorder`): it feeds ``RecorderStateMachine`` the feed's segment
/// events and command outcomes, the socket thread's requests and the store's outcomes, and carries out the actions
/// it returns. The samples themselves stay here (the machine only says where they go), and so do PRO requests and
/// the access summary, which decide nothing about recordings.
struct RecorderLoop {
    private let recorder: DaemonRecorder
    private let stopDescriptor: Int32
    private var machine = RecorderStateMachine()
    private var window: SampleWindow
    private var followed: FollowedSamples?
    /// The sample count of the last recording the shell stopped following (its report may come after).
    private var lastFollowedSamples = 0
    /// Samples seen by the open live-only view, and by the last one closed.
    private var viewSamples: Int?
    private var lastViewSamples = 0
    /// Each stored row's start: its wall-clock date and its stream instant (set once known). A row's end date is
    /// its start date plus the recording's length on the stream timeline, whatever the replay pace.
    private var rowStarts: [RecordingID: (date: Date, micros: Int64?)] = [:]
    /// The last refusal's text while the free plan still refuses, and whether it has been logged.
    private var refusal: String?
    private var refusalLogged = false
    private var access: DaemonStatus.AccessSummary?
    /// The newest sample's stream time and the wall clock when it was handled (maps stream µs to a wall date).
    private var anchor: (micros: Int64, wall: Date)?
    private var incoming = HandOffBatch<RecorderFeedEvent>()
    private var knownFeedDrops = 0
    /// While a stored recording's samples flow: when the recorder next takes the feed and commits everything it
    /// holds. The feed does not wake the recorder for those samples (it takes them `.onOwnSchedule`), so this tick,
    /// every `maxWait` (0.5 s), keeps the crash-loss bound: a sample waits at most one tick before its commit. A
    /// tick whose take finds no samples ends the ticking; the feed then wakes the recorder on the next sample.
    private var commitTick: ContinuousClock.Instant?
    /// What the last take asked the feed, and whether the feed now counts on the recorder's schedule.
    private var lastSampleWake = RecorderFeed.SampleWake.any
    private var feedOnSchedule = false
    /// While nothing is recorded, samples only fill the pre-roll window: they wake the recorder in batches this big
    /// (~50 s at 80 Hz, well inside the hand-off's 65,536), or with the next event.
    private static let preRollBacklog = 4096
    /// Set while the store refuses writes; samples are held, one retry per backoff step.
    private var storageTrouble: StorageTrouble?
    /// Recordings that ended while the store refused writes: their held samples and summary, committed at the next
    /// successful retry so space coming back still completes them.
    private var unfinished: [(writer: ChunkWriter, summary: RecordingSummaryValues, efforts: [StoredEffort])] = []

    init(recorder: DaemonRecorder, stopDescriptor: Int32) {
        self.recorder = recorder
        self.stopDescriptor = stopDescriptor
        window = SampleWindow(
            retentionMicros: recorder.settings.retentionMicros, capacity: recorder.settings.retentionSamples)
    }

    private var store: RecordingStore { recorder.store }
    private var logger: Logger { recorder.logger }

    mutating func run() {
        refreshAccess()
        publish()
        var stopping = false
        while !stopping {
            var descriptors = [
                pollfd(fd: recorder.feed.wake.readDescriptor, events: Int16(POLLIN), revents: 0),
                pollfd(fd: recorder.requests.wake.readDescriptor, events: Int16(POLLIN), revents: 0),
                pollfd(fd: stopDescriptor, events: Int16(POLLIN), revents: 0),
            ]
            recorder.liveness?.idle(.recorder)
            let ready = SystemCall.poll(&descriptors, timeoutMilliseconds: timeoutMilliseconds())
            recorder.liveness?.busy(.recorder)
            if ready < 0 {
                logger.error("poll failed", metadata: ["error.errno": "\(errno)"])
                break
            }
            if descriptors[2].revents != 0 { stopping = true }
            // Every wake-up takes the feed (cheap when empty): samples that arrived before a request are placed
            // before it, and a commit tick needs them.
            drainFeed()
            if descriptors[1].revents != 0 { handleRequests() }
            flushIfDue()
        }
        // The pipeline stopped before us (reverse shutdown order): its last outputs close the open recording.
        drainFeed()
        handleRequests()
        apply(.shutdown)
        logger.info("Recorder stopped")
    }

    /// The next commit deadline (the commit tick or the chunk writer's, or the storage retry while the store fails),
    /// or no timeout when nothing waits to be committed.
    private func timeoutMilliseconds() -> Int32 {
        let deadline: ContinuousClock.Instant
        if let storageTrouble {
            deadline = storageTrouble.retryAt
        } else if let next = [commitTick, followed?.writer?.flushDeadline].compactMap({ $0 }).min() {
            deadline = next
        } else {
            return -1
        }
        let due = deadline - ContinuousClock.now
        let millis = due.components.seconds * 1000 + due.components.attoseconds / 1_000_000_000_000_000
        return Int32(max(0, min(millis + 1, 60_000)))
    }

    private mutating func flushIfDue() {
        let now = ContinuousClock.now
        if let trouble = storageTrouble {
            guard trouble.isDue(now) else { return }
            retryStorage(now: now)
            return
        }
        guard let followed, let writer = followed.writer else {
            commitTick = nil
            return
        }
        do {
            if let tick = commitTick, now >= tick {
                if try writer.flush() != nil { recorder.status.counters.commits.add(1, ordering: .relaxed) }
                commitTick = nil
            } else if try writer.flushIfDue(now: now) != nil {
                recorder.status.counters.commits.add(1, ordering: .relaxed)
            }
        } catch {
            storageFailed(error, now: now)
        }
        // Tick while the feed counts on it, and after a take made before this recording opened (which asked for a
        // backlog wake only); the first tick's take then asks for `.onOwnSchedule`.
        if commitTick == nil && (feedOnSchedule || lastSampleWake != .onOwnSchedule) {
            commitTick = now + writer.maxWait
        }
    }

    /// One attempt to commit everything held: recordings that ended meanwhile first, then the open one.
    private mutating func retryStorage(now: ContinuousClock.Instant) {
        let held = heldSampleCount
        do {
            while let first = unfinished.first {
                try first.writer.finish(summary: first.summary, efforts: first.efforts)
                unfinished.removeFirst()
                logger.notice("Recording saved after the store recovered", metadata: ["recording.id": "\(first.writer.recording.rawValue)"])
                recorder.settings.recordingSaved()
            }
            try followed?.writer?.flush()
        } catch {
            if storageTrouble?.failedAgain(problem: "\(error)", now: now) == true {
                logger.error("The store still fails, differently", metadata: ["error": "\(error)"])
            }
            publish()
            return
        }
        let dropped = followed?.writer?.droppedCount ?? 0
        storageTrouble = nil
        logger.notice(
            "The store accepts writes again; held samples committed",
            metadata: ["recorder.committedSamples": "\(held)", "recorder.droppedSamples": "\(dropped)"])
        // STATUS first: a client that reads the event and then asks must see the same state.
        publish()
        postToWatchers(ProtocolMessage.recorderStorageRecovered(committedSamples: held, droppedSamples: dropped))
    }

    /// Enters the storage-trouble state (once: later failures only move the retry).
    private mutating func storageFailed(_ error: GripStoreError, now: ContinuousClock.Instant) {
        guard storageTrouble == nil else { return }
        let trouble = StorageTrouble(problem: "\(error)", now: now)
        storageTrouble = trouble
        let held = heldSampleCount
        logger.error(
            "The store refuses writes; holding the recording's samples in memory and retrying",
            metadata: ["error": "\(error)", "recorder.heldSamples": "\(held)"])
        publish()  // before the event, as above
        postToWatchers(ProtocolMessage.recorderStorageFailed(
            problem: trouble.problem, heldSamples: held, retrySeconds: Int(trouble.backoff.components.seconds)))
    }

    /// Samples in memory waiting for the store.
    private var heldSampleCount: Int {
        unfinished.reduce(followed?.writer?.bufferedCount ?? 0) { $0 + $1.writer.bufferedCount }
    }

    // MARK: - Feed

    private mutating func drainFeed() {
        lastSampleWake = followed?.writer != nil ? .onOwnSchedule : .backlog(Self.preRollBacklog)
        feedOnSchedule = recorder.feed.take(into: &incoming, next: lastSampleWake)
        var consumed = 0
        var effortEnded = false
        let events = incoming.events
        for (samplesBefore, event) in events {
            ingest(consumed..<samplesBefore)
            consumed = samplesBefore
            switch event {
            case .output(.segment(let segment)):
                if case .effortEnded = segment { effortEnded = true }
                apply(.segment(segment))
            case .output:
                break
            case .applied(let outcome):
                apply(.applied(outcome))
            case .streamEnded:
                window.removeAll()
                apply(.streamEnded)
            }
        }
        ingest(consumed..<incoming.micros.count)
        // An effort the watchers saw end is committed now, not at the next tick: a power cut right after the pull
        // keeps it.
        if effortEnded, storageTrouble == nil, let writer = followed?.writer {
            do {
                if try writer.flush() != nil { recorder.status.counters.commits.add(1, ordering: .relaxed) }
            } catch { storageFailed(error, now: .now) }
        }
        // Every sample the consumer decoded passes here once, a take (not a sample) at a time: /metrics counts
        // them without a counter on the hot path.
        recorder.status.counters.samples.add(incoming.micros.count, ordering: .relaxed)
        incoming.removeAll()
        let drops = recorder.feed.droppedCount
        if drops != knownFeedDrops {
            logger.warning(
                "Recorder feed overflowed; outputs were lost",
                metadata: ["recorder.droppedOutputs": "\(drops - knownFeedDrops)"])
            knownFeedDrops = drops
        }
    }

    /// Puts samples where the machine says (the route changes only at events, which split the ranges).
    private mutating func ingest(_ range: Range<Int>) {
        guard !range.isEmpty else { return }
        anchor = (incoming.micros[range.upperBound - 1], Date())
        if let count = viewSamples { viewSamples = count + range.count }
        let route = machine.sampleRoute
        var toStore: [StoredSample] = []
        if route != .none, followed?.writer != nil { toStore.reserveCapacity(range.count) }
        for index in range {
            let sample = StoredSample(micros: incoming.micros[index], kilograms: incoming.kilograms[index])
            window.append(sample)
            guard let followed else { continue }
            switch route {
            case .none:
                break
            case .inside:
                followed.count += 1
                if followed.writer != nil { toStore.append(sample) }
            case .held:
                followed.held.append(sample)
                // Stored at once too, so a crash during a rest keeps it; trimmed if the recording ends before it.
                if followed.writer != nil { toStore.append(sample) }
            }
        }
        if let followed { store(toStore, in: followed) }
    }

    private mutating func store(_ samples: [StoredSample], in followed: FollowedSamples) {
        guard let writer = followed.writer, !samples.isEmpty else { return }
        let droppedBefore = writer.droppedCount
        if storageTrouble != nil {
            writer.hold(samples)  // the retry commits them; no attempt per batch
        } else {
            do {
                try writer.append(samples)
            } catch {
                storageFailed(error, now: .now)
            }
        }
        followed.stored += samples.count - (writer.droppedCount - droppedBefore)
    }

    // MARK: - The state machine's actions

    /// Feeds the machine one input and carries out its actions (store outcomes go back in as they happen).
    private mutating func apply(_ input: RecorderStateMachine.Input) {
        for action in machine.handle(input) { perform(action) }
    }

    private mutating func perform(_ action: RecorderStateMachine.Action) {
        switch action {
        case .follow(let start):
            let samples = FollowedSamples(startMicros: start)
            if let oldest = window.oldest, oldest.micros > start {
                logger.debug(
                    "Recording starts before the oldest kept sample",
                    metadata: ["recording.start": "\(start)", "window.oldest": "\(oldest.micros)"])
            }
            samples.count = window.samples(from: start).count
            followed = samples
        case .admit(let start, let hand, let label):
            admit(startMicros: start, hand: hand, label: label)
        case .attach(let id):
            attach(id)
        case .describe(let id, let hand, let label):
            do {
                try store.describeRecording(id, hand: hand, label: label)
            } catch {
                logger.warning("Could not label recording", metadata: ["recording.id": "\(id.rawValue)", "error": "\(error)"])
            }
        case .releaseHeld(let through):
            guard let followed, !followed.held.isEmpty else { return }
            let belonging = through.map { end in followed.held.filter { $0.micros <= end } } ?? followed.held
            let after = followed.held.count - belonging.count
            followed.held.removeAll()
            followed.count += belonging.count
            // Held samples were stored as they came; those after the recording's end come out again.
            if after > 0, let end = through, let writer = followed.writer {
                do {
                    try writer.trim(after: end)
                } catch {
                    logger.warning(
                        "Could not trim the idle tail after the recording's end",
                        metadata: ["recording.id": "\(writer.recording.rawValue)", "error": "\(error)"])
                }
                followed.stored -= after
            }
        case .finish(let finish):
            self.finish(finish)
        case .discardRow(let id):
            discard(id)
        case .forget:
            lastFollowedSamples = followed?.reported ?? 0
            followed = nil
        case .pipeline(let command):
            recorder.control.post(command)
        case .reply(let client, let reply):
            self.reply(client, line(for: reply))
        case .report(let report):
            postToWatchers(line(for: report))
            log(report)
        case .publish:
            publish()
        case .log(let message):
            logger.info("\(message)")
        case .liveView(let open):
            if open {
                viewSamples = 0
            } else {
                lastViewSamples = viewSamples ?? 0
                viewSamples = nil
            }
        }
    }

    private mutating func admit(startMicros: Int64?, hand: Hand?, label: String?) {
        let explicit: Bool
        if case .admitting(.automatic) = machine.state.unwrapped { explicit = false } else { explicit = true }
        let startedAt = startMicros.map(wallClock) ?? Date()
        let outcome: RecorderStateMachine.StoreOutcome
        do {
            let id = try store.beginRecording(
                RecordingDraft(
                    startedAt: startedAt, device: recorder.settings.device, profile: recorder.settings.profile,
                    hand: hand, label: label),
                context: recorder.settings.access, now: Date())
            rowStarts[id] = (startedAt, startMicros)
            refusal = nil
            refusalLogged = false
            outcome = .started(id)
        } catch {
            switch error {
            case .refused(let reason, let stored):
                noteRefusal(reason, explicit: explicit)
                outcome = .refused(reason: reason, stored: stored)
            default:
                logger.error("Could not start storing a recording", metadata: ["error": "\(error)"])
                outcome = .failed("\(error)")
            }
        }
        refreshAccess()
        apply(.store(outcome))
    }

    /// Stores the followed recording in row `id` from now on, with its samples still in the window.
    private mutating func attach(_ id: RecordingID) {
        guard let followed else { return }  // it waits for its first sample; attached again then
        if let known = rowStarts[id], known.micros == nil { rowStarts[id] = (known.date, followed.startMicros) }
        guard followed.writer == nil else { return }
        followed.id = id
        followed.writer = ChunkWriter(store: store, recording: id)
        // Held-back samples are in the window too, and stored like the rest (trimmed if the recording ends first).
        store(Array(window.samples(from: followed.startMicros)), in: followed)
        followed.count = max(followed.count, followed.stored)
    }

    private mutating func finish(_ finish: RecorderStateMachine.Finish) {
        let id = finish.id
        let end = finish.recording?.endMicros ?? anchor?.micros
        let start = rowStarts.removeValue(forKey: id)
        var endedAt = Date()
        if let start, let startMicros = start.micros, let end {
            endedAt = start.date.addingTimeInterval(Double(max(0, end &- startMicros)) / 1_000_000)
        } else if let start {
            endedAt = max(start.date, endedAt)
        }
        let recording = finish.recording
        let summary = recording.map { RecordingSummaryValues($0, endedAt: endedAt) }
            ?? RecordingSummaryValues(endedAt: endedAt, maxKilograms: nil, averageKilograms: nil)
        let efforts = (recording?.efforts ?? []).enumerated().map { StoredEffort($0.element, index: $0.offset) }
        let outcome: RecorderStateMachine.StoreOutcome
        if let trouble = storageTrouble, let writer = followed?.writer, followed?.id == id {
            // Kept for the next retry: the row completes when the store accepts writes again.
            unfinished.append((writer, summary, efforts))
            logger.warning(
                "Recording ended while the store refuses writes; it is saved when the store recovers",
                metadata: ["recording.id": "\(id.rawValue)", "error": "\(trouble.problem)"])
            refreshAccess()
            apply(.store(.commitFailed(id, trouble.problem)))
            return
        }
        do {
            if let writer = followed?.writer, followed?.id == id {
                try writer.finish(summary: summary, efforts: efforts)
            } else {
                try store.finishRecording(id, summary: summary, efforts: efforts)
            }
            logger.info(
                "Recording saved",
                metadata: [
                    "recording.id": "\(id.rawValue)", "recording.samples": "\(followed?.stored ?? 0)",
                    "recording.efforts": "\(efforts.count)",
                ])
            recorder.settings.recordingSaved()
            outcome = .committed(id)
        } catch {
            logger.error("Could not finish recording", metadata: ["recording.id": "\(id.rawValue)", "error": "\(error)"])
            outcome = .commitFailed(id, "\(error)")
        }
        refreshAccess()
        apply(.store(outcome))
    }

    /// Removes a row admitted for a RECORD that never got its recording (it must not hold a free slot).
    private mutating func discard(_ id: RecordingID) {
        rowStarts[id] = nil
        do {
            try store.finishRecording(
                id, summary: RecordingSummaryValues(endedAt: Date(), maxKilograms: nil, averageKilograms: nil), efforts: [])
            try store.delete(id)
        } catch {
            logger.warning("Could not close an unused recording", metadata: ["recording.id": "\(id.rawValue)", "error": "\(error)"])
        }
        refreshAccess()
    }

    private func finished(_ finished: RecorderStateMachine.Finished) -> ProtocolMessage.FinishedRecording {
        let samples = finished.liveView ? (viewSamples ?? lastViewSamples) : (followed?.reported ?? lastFollowedSamples)
        return ProtocolMessage.FinishedRecording(
            id: finished.id?.rawValue, explicit: finished.explicit, samples: samples, efforts: finished.efforts,
            maxKilograms: finished.maxKilograms, averageKilograms: finished.averageKilograms,
            hand: finished.hand?.rawValue, label: finished.label)
    }

    private func line(for reply: RecorderStateMachine.Reply) -> String {
        switch reply {
        case .started(let saving, let id):
            return ProtocolMessage.recordStarted(saving: saving, id: id?.rawValue, access: access?.reason)
        case .refused(let reason, let stored):
            return ProtocolMessage.recordRefused(
                reason: reason, stored: stored, limit: recorder.settings.access.policy.storedRecordingLimit)
        case .stopped(let outcome):
            return ProtocolMessage.stopped(finished(outcome))
        case .error(let message):
            return RequestProblem(message: message).line
        }
    }

    private func line(for report: RecorderStateMachine.Report) -> String {
        switch report {
        case .started(let id, let explicit, let hand, let label):
            return ProtocolMessage.recorderStarted(id: id?.rawValue, explicit: explicit, hand: hand?.rawValue, label: label)
        case .refused(let explicit, let reason):
            return ProtocolMessage.recorderRefused(explicit: explicit, reason: reason)
        case .finished(let outcome):
            return ProtocolMessage.recorderFinished(finished(outcome))
        }
    }

    private func log(_ report: RecorderStateMachine.Report) {
        switch report {
        case .started(let id, let explicit, _, _):
            logger.info(
                "Recording started",
                metadata: ["recording.id": "\(id?.rawValue ?? -1)", "recording.explicit": "\(explicit)"])
        case .refused:
            break  // noteRefusal logs it (once)
        case .finished(let outcome) where outcome.id == nil:
            logger.info("Recording discarded (not saved)", metadata: ["recording.efforts": "\(outcome.efforts)"])
        case .finished:
            break
        }
    }

    // MARK: - Requests

    private mutating func handleRequests() {
        for request in recorder.requests.take() {
            switch request {
            case .record(let client, let hand, let label, let save):
                apply(.record(.init(client: client, hand: hand, label: label), save: save))
            case .stop(let client):
                apply(.stop(client))
            case .pro(let client, let action):
                pro(client, action)
            case .clientGone(let id):
                apply(.clientGone(id: id))
            case .refreshAccess:
                refreshAccess()
                publish()
            case .change(let client, let change):
                reply(client, StoreChanges.apply(
                    change, store: store, access: recorder.settings.access, openRecording: machine.openRecordingID,
                    actor: "uid \(client.uid) via griptrackd", now: Date()))
                refreshAccess()
                publish()
            }
        }
    }

    private mutating func pro(_ client: ClientReference, _ action: ProRequest) {
        let actor = "uid \(client.uid) via griptrackd"
        let now = Date()
        do {
            switch action {
            case .status:
                break
            case .grant(let note, let expires):
                try store.grantPro(note: note, expires: expires, by: actor, now: now)
                logger.notice("Pro granted", metadata: ["pro.actor": "\(actor)", "pro.note": "\(note ?? "")"])
            case .revoke:
                let removed = try store.clearManualOverride(by: actor, note: nil, at: now)
                logger.notice("Pro revoked", metadata: ["pro.actor": "\(actor)", "pro.removed": "\(removed)"])
            }
        } catch {
            return reply(client, RequestProblem(message: "\(error)").line)
        }
        refreshAccess()
        publish()
        guard let access else {
            return reply(client, RequestProblem(message: "could not read the entitlement state; see the daemon's log").line)
        }
        reply(client, ProtocolMessage.pro(access))
    }

    // MARK: - Helpers

    private func reply(_ client: ClientReference, _ line: String) {
        recorder.replies.post(.init(target: .client(client.id), line: line))
    }

    private func postToWatchers(_ line: String) {
        recorder.replies.post(.init(target: .watchers, line: line))
    }

    /// The wall-clock time of a stream instant, from the newest sample's arrival.
    private func wallClock(_ micros: Int64) -> Date {
        guard let anchor else { return Date() }
        return anchor.wall.addingTimeInterval(Double(micros &- anchor.micros) / 1_000_000)
    }

    /// Remembers a refusal for STATUS; an automatic one is logged once until a recording is admitted again.
    private mutating func noteRefusal(_ reason: String, explicit: Bool) {
        refusal = reason
        if explicit {
            logger.info("Recording refused by the free plan", metadata: ["recording.explicit": "true", "refusal.reason": "\(reason)"])
        } else if !refusalLogged {
            refusalLogged = true
            logger.notice(
                "Recordings are not stored: the free plan's limit is reached",
                metadata: ["refusal.reason": "\(reason)"])
        }
    }

    private mutating func refreshAccess() {
        do {
            let status = try store.accessStatus(recorder.settings.access, now: Date())
            access = DaemonStatus.AccessSummary(
                pro: status.access.isPro, reason: status.freeStorage ?? status.access.reason,
                stored: status.storedRecordings, limit: status.freeLimit)
            if status.access.isPro || status.storedRecordings < status.freeLimit {
                refusal = nil
                refusalLogged = false
            }
        } catch {
            logger.warning("Could not read the entitlement state", metadata: ["error": "\(error)"])
        }
    }

    private func publish() {
        var state = machine.status
        state.refusal = refusal
        state.problem = storageTrouble?.problem
        state.heldSamples = heldSampleCount
        let access = access
        recorder.status.update { snapshot in
            snapshot.recorder = state
            snapshot.access = access
        }
    }
}
