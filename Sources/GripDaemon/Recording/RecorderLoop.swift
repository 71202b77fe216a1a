import Foundation
import Glibc
import GripAnalysis
import GripStore
import GripStream
import Logging

/// A recording the recorder follows: from the segmenter's `recordingStarted` (or an explicit RECORD) to its
/// `recordingEnded`. Owned by the recorder thread.
private final class OpenRecording {
    /// Its first instant (stream µs); nil while an explicit recording waits for the stream's first sample.
    var startMicros: Int64?
    var explicit: Bool
    /// The client whose RECORD made it explicit.
    var owner: ClientReference?
    var hand: Hand?
    var label: String?
    /// The stored row and its writer; nil for a live-only (save:false) or refused recording.
    var id: RecordingID?
    var writer: ChunkWriter?
    /// An automatic recording the free plan refused (nothing is stored; it is followed so STOP and STATUS work).
    var refused = false
    /// Closed by the recorder itself (an unwanted recording): no reports when it ends.
    var silent = false
    /// Samples inside the recording seen so far, and how many of them went to the store.
    var sampleCount = 0
    var storedCount = 0
    /// While automatic: samples after the last effort's end + post-roll, kept back until an effort starts again
    /// (they belong to the recording) or the recording ends (they do not).
    var held: [StoredSample] = []
    /// End of the last effort (stream µs) while no effort is in progress.
    var lastEffortEnd: Int64?
    /// Host wall-clock start.
    var startedAt: Date

    init(startMicros: Int64?, explicit: Bool, startedAt: Date) {
        self.startMicros = startMicros
        self.explicit = explicit
        self.startedAt = startedAt
    }
}

/// A RECORD the consumer has not applied yet: its reply waits for the command's outcome.
private struct PendingRecord {
    var token: Int
    var client: ClientReference
    var hand: Hand?
    var label: String?
    var save: Bool
    /// The row admitted for it (or the automatic recording's row it takes over).
    var id: RecordingID?
    /// A recording that started after the request claimed it (no passive admission for it).
    var claimed = false
}

/// A STOP waiting for the recording to end.
private struct PendingStop {
    var token: Int
    var client: ClientReference
}

/// The recorder thread's state and loop (see `DaemonRecorder`).
struct RecorderLoop {
    private let recorder: DaemonRecorder
    private let stopDescriptor: Int32
    private var window: SampleWindow
    private var current: OpenRecording?
    private var pending: PendingRecord?
    private var stops: [PendingStop] = []
    /// End-recording tokens the recorder sent itself (nobody to answer).
    private var nextToken = 1
    private var streamEnded = false
    /// The last refusal's text while the free plan still refuses, and whether it has been logged.
    private var refusal: String?
    private var refusalLogged = false
    private var access: DaemonStatus.AccessSummary?
    /// The newest sample's stream time and the wall clock when it was handled (maps stream µs to wall time).
    private var anchor: (micros: Int64, wall: Date)?
    private var incoming = HandOffBatch<RecorderFeedEvent>()
    private var knownFeedDrops = 0

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
            let ready = poll(&descriptors, nfds_t(descriptors.count), timeoutMilliseconds())
            if ready < 0 {
                if errno == EINTR { continue }
                logger.error("poll failed", metadata: ["error.errno": "\(errno)"])
                break
            }
            if descriptors[2].revents != 0 { stopping = true }
            if descriptors[0].revents != 0 { drainFeed() }
            if descriptors[1].revents != 0 { handleRequests() }
            flushIfDue()
        }
        // The pipeline stopped before us (reverse shutdown order): its last outputs close the open recording.
        drainFeed()
        handleRequests()
        if let open = current {
            logger.warning("Recording still open at shutdown; finishing it with the samples received")
            finish(open, recording: nil)
        }
        if let request = pending {
            pending = nil
            abandon(request, because: "the daemon is shutting down")
        }
        logger.info("Recorder stopped")
    }

    /// The chunk writer's next commit deadline, or no timeout when nothing waits to be committed.
    private func timeoutMilliseconds() -> Int32 {
        guard let deadline = current?.writer?.flushDeadline else { return -1 }
        let due = deadline - ContinuousClock.now
        let millis = due.components.seconds * 1000 + due.components.attoseconds / 1_000_000_000_000_000
        return Int32(max(0, min(millis + 1, 1000)))
    }

    private mutating func flushIfDue() {
        guard let open = current, let writer = open.writer else { return }
        do {
            try writer.flushIfDue()
        } catch {
            logger.error("Could not commit samples", metadata: ["recording.id": "\(open.id?.rawValue ?? -1)", "error": "\(error)"])
        }
    }

    // MARK: - Feed

    private mutating func drainFeed() {
        recorder.feed.take(into: &incoming)
        var consumed = 0
        let events = incoming.events
        for (samplesBefore, event) in events {
            ingest(consumed..<samplesBefore)
            consumed = samplesBefore
            handle(event)
        }
        ingest(consumed..<incoming.micros.count)
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
        guard !range.isEmpty else { return }
        anchor = (incoming.micros[range.upperBound - 1], Date())
        var toStore: [StoredSample] = []
        let open = current.flatMap { $0.startMicros == nil ? nil : $0 }
        if open?.writer != nil { toStore.reserveCapacity(range.count) }
        for index in range {
            let sample = StoredSample(micros: incoming.micros[index], kilograms: incoming.kilograms[index])
            window.append(sample)
            guard let open else { continue }
            if !open.explicit,
                !open.held.isEmpty
                    || open.lastEffortEnd.map({ sample.micros > $0 &+ recorder.settings.postRollMicros }) == true
            {
                open.held.append(sample)
                continue
            }
            open.sampleCount += 1
            if open.writer != nil { toStore.append(sample) }
        }
        if let open { store(toStore, in: open) }
    }

    private func store(_ samples: [StoredSample], in open: OpenRecording) {
        guard let writer = open.writer, !samples.isEmpty else { return }
        do {
            try writer.append(samples)
            open.storedCount += samples.count
        } catch {
            logger.error("Could not store samples", metadata: ["recording.id": "\(open.id?.rawValue ?? -1)", "error": "\(error)"])
        }
    }

    private mutating func handle(_ event: RecorderFeedEvent) {
        switch event {
        case .output(.segment(let segment)):
            handle(segment)
        case .output:
            break
        case .applied(.began(let token, let adopted)):
            began(token: token, adopted: adopted)
        case .applied(.ended(let token, let wasOpen)):
            ended(token: token, wasOpen: wasOpen)
        case .streamEnded:
            endOfStream()
        }
    }

    private mutating func handle(_ segment: SegmentEvent) {
        switch segment {
        case .recordingStarted(let start):
            recordingStarted(at: start)
        case .effortStarted:
            guard let open = current else { return }
            open.lastEffortEnd = nil
            releaseHeld(of: open, upTo: nil)
        case .effortEnded(let effort):
            current?.lastEffortEnd = effort.endMicros
        case .recordingEnded(let recording):
            guard let open = current else {
                logger.debug("Recording ended that the recorder did not follow")
                return
            }
            finish(open, recording: recording)
        }
    }

    /// Moves kept-back samples into the recording (all of them, or those up to `end`).
    private func releaseHeld(of open: OpenRecording, upTo end: Int64?) {
        guard !open.held.isEmpty else { return }
        let belonging = end.map { end in open.held.filter { $0.micros <= end } } ?? open.held
        open.held.removeAll()
        open.sampleCount += belonging.count
        store(belonging, in: open)
    }

    private mutating func recordingStarted(at start: Int64) {
        if let open = current {
            if open.startMicros == nil {
                // An explicit recording that waited for the stream's first sample.
                open.startMicros = start
                open.startedAt = wallClock(start)
                takeWindow(into: open)
                publish()
            } else {
                logger.debug("Recording started while another was followed", metadata: ["recording.start": "\(start)"])
            }
            return
        }
        if var request = pending {
            // A RECORD waits for its outcome: this recording is the one it gets (automatic or opened by it).
            request.claimed = true
            pending = request
            let open = OpenRecording(startMicros: start, explicit: true, startedAt: wallClock(start))
            open.owner = request.client
            open.hand = request.hand
            open.label = request.label
            current = open
            if let id = request.id { attach(id, to: open) }
            takeWindow(into: open)
            publish()
            return
        }
        // Passive mode: ask the free plan for a slot.
        let open = OpenRecording(startMicros: start, explicit: false, startedAt: wallClock(start))
        current = open
        do {
            let id = try store.beginRecording(draft(startedAt: open.startedAt), context: recorder.settings.access, now: Date())
            admitted()
            attach(id, to: open)
            takeWindow(into: open)
            refreshAccess()
            publish()
            recorder.replies.post(.init(
                target: .watchers, line: ProtocolMessage.recorderStarted(id: id.rawValue, explicit: false, hand: nil, label: nil)))
            logger.info("Recording started", metadata: ["recording.id": "\(id.rawValue)", "recording.explicit": "false"])
        } catch {
            open.refused = true
            switch error {
            case .refused(let reason, _):
                noteRefusal(reason, explicit: false)
                publish()
                recorder.replies.post(.init(
                    target: .watchers, line: ProtocolMessage.recorderRefused(explicit: false, reason: reason)))
            default:
                logger.error("Could not start storing a recording", metadata: ["error": "\(error)"])
            }
            takeWindow(into: open)
        }
        publish()
    }

    /// Counts (and stores, with a writer) the recent samples that belong to `open`.
    private func takeWindow(into open: OpenRecording) {
        guard let start = open.startMicros else { return }
        if let oldest = window.oldest, oldest.micros > start {
            logger.debug(
                "Recording starts before the oldest kept sample",
                metadata: ["recording.start": "\(start)", "window.oldest": "\(oldest.micros)"])
        }
        let samples = Array(window.samples(from: start))
        open.sampleCount = samples.count
        store(samples, in: open)
    }

    private func attach(_ id: RecordingID, to open: OpenRecording) {
        open.id = id
        open.writer = ChunkWriter(store: store, recording: id)
    }

    // MARK: - Command outcomes

    private mutating func began(token: Int, adopted: Bool) {
        guard var request = pending, request.token == token else { return }
        pending = nil
        let open: OpenRecording
        if let existing = current {
            open = existing
        } else {
            // Opens with the stream's first sample (none has arrived yet).
            open = OpenRecording(startMicros: nil, explicit: true, startedAt: Date())
            current = open
        }
        open.explicit = true
        open.refused = false  // an explicit recording is reported even when it is not stored
        open.owner = request.client
        if let hand = request.hand { open.hand = hand }
        if let label = request.label { open.label = label }
        if open.writer == nil && request.save {
            if request.id == nil {
                // Rare: the recording RECORD was meant to take over ended before the consumer applied it, and
                // the consumer opened a new one; it needs its own slot.
                do {
                    request.id = try store.beginRecording(
                        draft(startedAt: open.startedAt, hand: open.hand, label: open.label),
                        context: recorder.settings.access, now: Date())
                    admitted()
                } catch {
                    refuseRecord(request, error: error)
                    open.silent = true
                    open.explicit = false
                    sendEnd(for: nil)
                    publish()
                    return
                }
            }
            if let id = request.id {
                attach(id, to: open)
                // Samples since its start that are still in the window (a refused automatic recording stored none).
                let known = open.sampleCount
                takeWindow(into: open)
                open.sampleCount = max(known, open.sampleCount)
            }
        }
        if let id = open.id, request.hand != nil || request.label != nil {
            do {
                try store.describeRecording(id, hand: request.hand, label: request.label)
            } catch {
                logger.warning("Could not label recording", metadata: ["recording.id": "\(id.rawValue)", "error": "\(error)"])
            }
        }
        releaseHeld(of: open, upTo: nil)  // explicit recordings keep everything up to their end
        open.lastEffortEnd = nil
        refreshAccess()
        // STATUS says what the replies say by the time a client reads them.
        publish()
        recorder.replies.post(.init(
            target: .client(request.client.id),
            line: ProtocolMessage.recordStarted(saving: open.writer != nil, id: open.id?.rawValue, access: access?.reason)))
        recorder.replies.post(.init(
            target: .watchers,
            line: ProtocolMessage.recorderStarted(
                id: open.id?.rawValue, explicit: true, hand: open.hand?.rawValue, label: open.label)))
        logger.info(
            "Recording started",
            metadata: [
                "recording.id": "\(open.id?.rawValue ?? -1)", "recording.explicit": "true",
                "client.pid": "\(request.client.pid)", "recording.adopted": "\(adopted)",
            ])
    }

    private mutating func ended(token: Int, wasOpen: Bool) {
        if let open = current, open.startMicros == nil || !wasOpen {
            // Nothing for the segmenter to close: an explicit recording that never got a sample (or whose end the
            // feed lost). Finish it with what it has.
            finish(open, recording: nil)
        }
        let unanswered = stops.filter { $0.token == token }
        stops.removeAll { $0.token == token }
        for stop in unanswered {
            recorder.replies.post(.init(target: .client(stop.client.id), line: ProtocolMessage.error("no recording in progress")))
        }
    }

    private mutating func endOfStream() {
        streamEnded = true
        window.removeAll()
        if let open = current { finish(open, recording: nil) }
        if let request = pending {
            pending = nil
            abandon(request, because: "the device stream ended before the recording started")
        }
        for stop in stops {
            recorder.replies.post(.init(target: .client(stop.client.id), line: ProtocolMessage.error("no recording in progress")))
        }
        stops.removeAll()
        publish()
    }

    /// Answers a RECORD that will never be applied; removes the empty row admitted for it, if any (it must not
    /// hold a free slot).
    private mutating func abandon(_ request: PendingRecord, because reason: String) {
        if let id = request.id, !request.claimed, current?.id != id {
            do {
                try store.finishRecording(
                    id, summary: RecordingSummaryValues(endedAt: Date(), maxKilograms: nil, averageKilograms: nil),
                    efforts: [])
                try store.delete(id)
                refreshAccess()
            } catch {
                logger.warning("Could not close an unused recording", metadata: ["recording.id": "\(id.rawValue)", "error": "\(error)"])
            }
        }
        recorder.replies.post(.init(
            target: .client(request.client.id), line: ProtocolMessage.error("no recording started: \(reason)")))
    }

    // MARK: - Finishing

    /// Closes `open`: commits its last samples and marks the row complete (with `recording`'s efforts and scores),
    /// reports it and answers every waiting STOP.
    private mutating func finish(_ open: OpenRecording, recording: Recording?) {
        current = nil
        let end = recording?.endMicros ?? anchor?.micros
        releaseHeld(of: open, upTo: end ?? Int64.min)
        let efforts = recording?.efforts ?? []
        let finished = ProtocolMessage.FinishedRecording(
            id: open.id?.rawValue, explicit: open.explicit, samples: open.writer != nil ? open.storedCount : open.sampleCount,
            efforts: efforts.count, maxKilograms: recording?.maxKg, averageKilograms: recording?.averageKg,
            hand: open.hand?.rawValue, label: open.label)
        if let writer = open.writer, let id = open.id {
            let endedAt = end.map(wallClock) ?? Date()
            let summary = recording.map { RecordingSummaryValues($0, endedAt: endedAt) }
                ?? RecordingSummaryValues(endedAt: endedAt, maxKilograms: nil, averageKilograms: nil)
            do {
                try writer.finish(
                    summary: summary, efforts: efforts.enumerated().map { StoredEffort($0.element, index: $0.offset) })
                logger.info(
                    "Recording saved",
                    metadata: [
                        "recording.id": "\(id.rawValue)", "recording.samples": "\(open.storedCount)",
                        "recording.efforts": "\(efforts.count)", "recording.explicit": "\(open.explicit)",
                    ])
            } catch {
                logger.error("Could not finish recording", metadata: ["recording.id": "\(id.rawValue)", "error": "\(error)"])
            }
            if pending?.id == id { pending?.id = nil }
        } else if !open.refused && !open.silent {
            logger.info(
                "Recording discarded (not saved)",
                metadata: ["recording.samples": "\(open.sampleCount)", "recording.efforts": "\(efforts.count)"])
        }
        refreshAccess()
        publish()
        if !open.refused && !open.silent {
            recorder.replies.post(.init(target: .watchers, line: ProtocolMessage.recorderFinished(finished)))
        }
        for stop in stops {
            recorder.replies.post(.init(target: .client(stop.client.id), line: ProtocolMessage.stopped(finished)))
        }
        stops.removeAll()
    }

    // MARK: - Requests

    private mutating func handleRequests() {
        for request in recorder.requests.take() {
            switch request {
            case .record(let client, let hand, let label, let save):
                record(client, hand: hand, label: label, save: save)
            case .stop(let client):
                stop(client)
            case .pro(let client, let action):
                pro(client, action)
            case .clientGone(let id):
                clientGone(id)
            case .refreshAccess:
                refreshAccess()
                publish()
            case .change(let client, let change):
                reply(client, StoreChanges.apply(
                    change, store: store, access: recorder.settings.access, openRecording: current?.id ?? pending?.id,
                    actor: "uid \(client.uid) via griptrackd", now: Date()))
                refreshAccess()
                publish()
            }
        }
    }

    private mutating func record(_ client: ClientReference, hand: Hand?, label: String?, save: Bool) {
        if streamEnded {
            return reply(client, ProtocolMessage.error("no device stream: the replay has ended, so there is nothing to record"))
        }
        if let request = pending {
            return reply(client, ProtocolMessage.error(
                "a recording is already in progress (explicit, started by pid \(request.client.pid)); send STOP first"))
        }
        if let open = current, open.explicit {
            let by = open.owner.map { "started by pid \($0.pid)" } ?? "started by a client that has left"
            return reply(client, ProtocolMessage.error("a recording is already in progress (explicit, \(by)); send STOP first"))
        }
        var id = current?.id
        if save && id == nil {
            do {
                id = try store.beginRecording(
                    draft(startedAt: current?.startedAt ?? Date(), hand: hand, label: label),
                    context: recorder.settings.access, now: Date())
                admitted()
            } catch {
                refuseRecord(PendingRecord(token: 0, client: client, save: save), error: error)
                publish()
                return
            }
        }
        let token = takeToken()
        pending = PendingRecord(token: token, client: client, hand: hand, label: label, save: save, id: id)
        recorder.control.post(.beginRecording(token: token))
    }

    /// Replies to a RECORD whose admission failed: RECORD "refused" for the free plan, ERROR otherwise.
    private mutating func refuseRecord(_ request: PendingRecord, error: GripStoreError) {
        switch error {
        case .refused(let reason, let stored):
            noteRefusal(reason, explicit: true)
            refreshAccess()
            publish()
            reply(request.client, ProtocolMessage.recordRefused(
                reason: reason, stored: stored, limit: recorder.settings.access.policy.storedRecordingLimit))
        default:
            logger.error("Could not start storing a recording", metadata: ["error": "\(error)"])
            reply(request.client, ProtocolMessage.error("\(error)"))
        }
    }

    private mutating func stop(_ client: ClientReference) {
        guard current != nil || pending != nil else {
            return reply(client, ProtocolMessage.error("no recording in progress"))
        }
        let token = sendEnd(for: client)
        logger.debug("Stop requested", metadata: ["client.pid": "\(client.pid)", "recorder.token": "\(token)"])
    }

    /// Asks the consumer to close the open recording; a STOP from `client` waits for the result.
    @discardableResult
    private mutating func sendEnd(for client: ClientReference?) -> Int {
        let token = takeToken()
        if let client { stops.append(PendingStop(token: token, client: client)) }
        recorder.control.post(.endRecording(token: token))
        return token
    }

    private mutating func clientGone(_ id: Int) {
        stops.removeAll { $0.client.id == id }
        let ownsOpen = current.map { $0.explicit && $0.owner?.id == id } ?? false
        let ownsPending = pending?.client.id == id
        guard ownsOpen || ownsPending else { return }
        logger.info("Recording stopped: its client disconnected", metadata: ["client.id": "\(id)"])
        sendEnd(for: nil)
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
            return reply(client, ProtocolMessage.error("\(error)"))
        }
        refreshAccess()
        publish()
        guard let access else {
            return reply(client, ProtocolMessage.error("could not read the entitlement state; see the daemon's log"))
        }
        reply(client, ProtocolMessage.pro(access))
    }

    // MARK: - Helpers

    private mutating func takeToken() -> Int {
        defer { nextToken += 1 }
        return nextToken
    }

    private func reply(_ client: ClientReference, _ line: String) {
        recorder.replies.post(.init(target: .client(client.id), line: line))
    }

    private func draft(startedAt: Date, hand: Hand? = nil, label: String? = nil) -> RecordingDraft {
        RecordingDraft(
            startedAt: startedAt, device: recorder.settings.device, profile: recorder.settings.profile, hand: hand,
            label: label)
    }

    /// The wall-clock time of a stream instant, from the newest sample's arrival.
    private func wallClock(_ micros: Int64) -> Date {
        guard let anchor else { return Date() }
        return anchor.wall.addingTimeInterval(Double(micros &- anchor.micros) / 1_000_000)
    }

    private mutating func admitted() {
        refusal = nil
        refusalLogged = false
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
        let open = current
        var state = DaemonStatus.RecorderState()
        state.recording = open != nil
        state.explicit = open?.explicit ?? false
        state.saving = open?.writer != nil
        state.id = open?.id?.rawValue
        state.refusal = refusal
        let access = access
        recorder.status.update { snapshot in
            snapshot.recorder = state
            snapshot.access = access
        }
    }
}
