import Foundation
import Glibc
import GripSystem
import GripProtocol
import GripStore
import Logging

/// The recorder thread's poll-and-dispatch loop (see `DaemonRecorder`): it feeds ``RecorderStateMachine`` the feed's
/// segment events and command outcomes, the socket thread's requests and the store's outcomes, and carries out the
/// actions it returns. Its parts: ``SampleRouter`` puts the samples where the machine says, ``CommitSchedule``
/// says when to commit them, ``StoreWrites`` makes every other store write (rows, PRO, DELETE) and
/// ``RecorderLines`` writes the protocol lines.
struct RecorderLoop {
    private let recorder: DaemonRecorder
    private let stopDescriptor: Int32
    private var machine = RecorderStateMachine()
    private var samples: SampleRouter
    private var schedule = CommitSchedule()
    private var writes: StoreWrites
    private let lines: RecorderLines
    private var incoming = HandOffBatch<RecorderFeedEvent>()
    private var knownFeedDrops = 0

    init(recorder: DaemonRecorder, stopDescriptor: Int32) {
        self.recorder = recorder
        self.stopDescriptor = stopDescriptor
        samples = SampleRouter(
            retentionMicros: recorder.settings.retentionMicros, capacity: recorder.settings.retentionSamples)
        writes = StoreWrites(store: recorder.store, settings: recorder.settings, logger: recorder.logger)
        lines = RecorderLines(
            replies: recorder.replies, logger: recorder.logger,
            storedRecordingLimit: recorder.settings.access.policy.storedRecordingLimit)
    }

    private var logger: Logger { recorder.logger }

    mutating func run() {
        writes.refreshAccess()
        publish()
        var stopping = false
        while !stopping {
            var descriptors = [
                pollfd(fd: recorder.feed.wake.readDescriptor, events: Int16(POLLIN), revents: 0),
                pollfd(fd: recorder.requests.wake.readDescriptor, events: Int16(POLLIN), revents: 0),
                pollfd(fd: stopDescriptor, events: Int16(POLLIN), revents: 0),
            ]
            let deadline = schedule.deadline(writerDeadline: samples.writer?.flushDeadline)
            recorder.liveness?.idle(.recorder)
            let ready = SystemCall.poll(
                &descriptors, timeoutMilliseconds: CommitSchedule.pollTimeout(until: deadline, now: .now))
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
            commitIfDue()
        }
        // The pipeline stopped before us (reverse shutdown order): its last outputs close the open recording.
        drainFeed()
        handleRequests()
        apply(.shutdown)
        logger.info("Recorder stopped")
    }

    // MARK: - Commits

    private mutating func commitIfDue() {
        let now = ContinuousClock.now
        let writer = samples.writer
        let work = schedule.work(at: now, storing: writer != nil)
        switch work {
        case .nothing:
            return
        case .retry:
            return retryStorage(now: now)
        case .everything, .dueChunks:
            guard let writer else { return }
            let everything = work == .everything
            if commit(writer, everything: everything, now: now), everything { schedule.committedEverything() }
            schedule.scheduleTick(now: now, every: writer.maxWait)
        }
    }

    /// Commits what `writer` holds (everything, or what its deadline makes due); returns whether the store took it.
    private mutating func commit(_ writer: ChunkWriter, everything: Bool, now: ContinuousClock.Instant) -> Bool {
        do {
            if try (everything ? writer.flush() : writer.flushIfDue(now: now)) != nil {
                recorder.status.counters.commits.add(1, ordering: .relaxed)
            }
            return true
        } catch {
            storageFailed(error, now: now)
            return false
        }
    }

    /// One attempt to commit everything held: recordings that ended meanwhile first, then the open one.
    private mutating func retryStorage(now: ContinuousClock.Instant) {
        let held = heldSampleCount
        do {
            try writes.finishUnfinished()
            try samples.writer?.flush()
        } catch {
            if schedule.retryFailed(problem: "\(error)", now: now) {
                logger.error("The store still fails, differently", metadata: ["error": "\(error)"])
            }
            publish()
            return
        }
        schedule.recovered()
        publish()
        lines.storageRecovered(committedSamples: held, droppedSamples: samples.writer?.droppedCount ?? 0)
    }

    /// Enters the storage-trouble state (once: later failures only move the retry).
    private mutating func storageFailed(_ error: GripStoreError, now: ContinuousClock.Instant) {
        guard let trouble = schedule.commitFailed(problem: "\(error)", now: now) else { return }
        publish()
        lines.storageFailed(trouble, heldSamples: heldSampleCount)
    }

    /// Samples in memory waiting for the store.
    private var heldSampleCount: Int { writes.unfinishedSampleCount + (samples.writer?.bufferedCount ?? 0) }

    // MARK: - Feed

    private mutating func drainFeed() {
        let wake = schedule.sampleWake(storing: samples.writer != nil)
        schedule.took(feedOnSchedule: recorder.feed.take(into: &incoming, next: wake))
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
                samples.streamEnded()
                apply(.streamEnded)
            }
        }
        ingest(consumed..<incoming.micros.count)
        // An effort the watchers saw end is committed now, not at the next tick: a power cut right after the pull
        // keeps it.
        if effortEnded, schedule.trouble == nil, let writer = samples.writer {
            _ = commit(writer, everything: true, now: .now)
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

    private mutating func ingest(_ range: Range<Int>) {
        store(samples.route(range, of: incoming, machine.sampleRoute))
    }

    private mutating func store(_ batch: [StoredSample]) {
        do {
            let commits = try samples.store(batch, holding: schedule.trouble != nil)
            if commits > 0 { recorder.status.counters.commits.add(commits, ordering: .relaxed) }
        } catch {
            storageFailed(error, now: .now)
        }
    }

    // MARK: - The state machine's actions

    /// Feeds the machine one input and carries out its actions (store outcomes go back in as they happen).
    private mutating func apply(_ input: RecorderStateMachine.Input) {
        for action in machine.handle(input) { perform(action) }
    }

    private mutating func perform(_ action: RecorderStateMachine.Action) {
        switch action {
        case .follow(let start):
            samples.follow(from: start, logger: logger)
        case .admit(let start, let hand, let label):
            let automatic = if case .admitting(.automatic) = machine.state.unwrapped { true } else { false }
            apply(.store(writes.admit(
                startedAt: start.map(samples.wallClock) ?? Date(), startMicros: start, hand: hand, label: label,
                explicit: !automatic)))
        case .attach(let id):
            guard let start = samples.followed?.startMicros else { return }  // attached again at its first sample
            writes.rowStarts(id, atMicros: start)
            guard let backlog = samples.attach(id, store: recorder.store) else { return }
            store(backlog)
            samples.countAttached()
        case .describe(let id, let hand, let label):
            writes.describe(id, hand: hand, label: label)
        case .releaseHeld(let through):
            samples.releaseHeld(through: through, logger: logger)
        case .finish(let finish):
            let followed = samples.followed
            apply(.store(writes.finish(
                finish, writer: followed?.id == finish.id ? followed?.writer : nil, storedSamples: followed?.stored ?? 0,
                newestMicros: samples.newestMicros, trouble: schedule.trouble)))
        case .discardRow(let id):
            writes.discard(id)
        case .forget:
            samples.forget()
        case .pipeline(let command):
            recorder.control.post(command)
        case .reply(let client, let reply):
            lines.reply(client, reply, samples: samples.samples(of:), access: writes.access)
        case .report(let report):
            lines.report(report, samples: samples.samples(of:))
        case .publish:
            publish()
        case .log(let message):
            logger.info("\(message)")
        case .liveView(let open):
            samples.liveView(open: open)
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
            case .clientGone(let id):
                apply(.clientGone(id: id))
            case .pro(let client, let action):
                let answer = writes.pro(action, actor: Self.actor(client))
                if answer.accessRead { publish() }
                lines.reply(client, answer.line)
            case .refreshAccess:
                writes.refreshAccess()
                publish()
            case .change(let client, let change):
                lines.reply(client, writes.change(change, openRecording: machine.openRecordingID, actor: Self.actor(client)))
                publish()
            }
        }
    }

    /// Who asked, for the store's audit log.
    private static func actor(_ client: ClientReference) -> String { "uid \(client.uid) via griptrackd" }

    private func publish() {
        var state = machine.status
        state.refusal = writes.refusal
        state.problem = schedule.trouble?.problem
        state.heldSamples = heldSampleCount
        let access = writes.access
        recorder.status.update { snapshot in
            snapshot.recorder = state
            snapshot.access = access
        }
    }
}
