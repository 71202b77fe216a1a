import GripAnalysis
import GripProtocol
import GripStore

/// Every decision the daemon's recorder makes, as a pure value: it reads no clock, does no I/O and touches no
/// store. ``RecorderLoop`` (the I/O shell) feeds it ``Input``s in the order they happen and carries out the
/// ``Action``s each one returns, in order; when an action asks the store for something (``Action/admit(_:)``,
/// ``Action/finish(_:)``), the shell feeds the store's outcome back at once, before any other input.
///
/// **Which samples belong to a recording** is decided once, by the segmenter: a recording covers the samples from
/// its `recordingStarted` start to its `recordingEnded` end (stream µs, inclusive). The machine only says where the
/// samples that arrive now go (``sampleRoute``): nowhere, into the recording, or held back. Samples after an
/// automatic recording's last effort are held back until the segmenter says whether the recording goes on (the next
/// `effortStarted`: all of them belong to it) or ends (`recordingEnded`: those up to its end belong to it). An
/// explicit recording ends at its last sample, so it holds nothing back.
///
/// **RECORD and the automatic recording.** The consumer thread owns the segmenter, so the recorder's view lags it; a
/// RECORD is therefore settled by the consumer's answer (``PipelineCommandOutcome/began(token:adopted:)``), which
/// arrives after every segment event that happened before it:
/// - *running*: the consumer adopts the automatic recording; it keeps its start and its row, and the RECORD's hand
///   and label are written to that row.
/// - *starting* (its `recordingStarted` is still on its way): the RECORD was admitted with a row of its own, and the
///   recording that starts while the RECORD waits is claimed by it (no second admission): one row, with the hand
///   and label.
/// - *ending* (the segmenter closed it before the consumer saw RECORD, or STOP was sent): that recording is saved as
///   it ended; the RECORD gets the recording the consumer opens for it, with a row of its own.
/// - `save: false` (live only) never touches a stored recording. While the daemon stores an automatic recording by
///   itself, the request is a view beside it with its own summary (samples and efforts from RECORD to STOP); that
///   recording stays automatic, keeps its row and ends by its own rules. Otherwise it is an explicit recording that
///   stores nothing (taking over an automatic recording the free plan refused).
struct RecorderStateMachine {
    /// A RECORD's fields.
    struct Request: Sendable, Equatable {
        var client: ClientReference
        var hand: Hand?
        var label: String?
    }

    /// What happens to an open recording's samples.
    enum Row: Sendable, Equatable {
        /// Not stored yet (being admitted), or an explicit recording still waiting for its row.
        case none
        case stored(RecordingID)
        /// The free plan refused it: followed (STATUS, STOP) but nothing is stored.
        case refused
        /// The store failed to admit it: followed but nothing is stored.
        case failed
    }

    /// The recording the segmenter has open, as the recorder follows it.
    struct Open: Sendable, Equatable {
        /// First instant (stream µs); nil while an explicit recording waits for the stream's first sample.
        var startMicros: Int64?
        var explicit = false
        /// The client whose RECORD made it explicit.
        var owner: ClientReference?
        var hand: Hand?
        var label: String?
        var row = Row.none
        /// After an effort ended (automatic only): new samples are held back until the segmenter decides.
        var holding = false
        /// Closed without reports (an explicit recording whose row the free plan refused after all).
        var silent = false

        var id: RecordingID? { if case .stored(let id) = row { id } else { nil } }
    }

    /// A RECORD (saving) whose outcome the consumer has not reported yet.
    struct Begin: Sendable, Equatable {
        var token: Int
        var request: Request
        /// The row admitted for it; nil when it takes over the followed recording's row.
        var row: RecordingID?
        /// The recording the consumer opened for it (its `recordingStarted` came before the outcome).
        var claimed: Open?
        /// STOP (or the client's disconnect) was sent after it: this end command follows the begin.
        var endToken: Int?
        /// False for a live-only explicit recording (nothing open was being stored): it never gets a row.
        var save = true
    }

    /// A live-only RECORD (`save: false`) while an automatic recording is being stored: a view with its own summary
    /// that leaves that recording alone.
    struct LiveView: Sendable, Equatable {
        var request: Request
        /// Efforts that ended while it was open (provisional: no false-start removal).
        var efforts: [Effort] = []
    }

    /// What the admission is for.
    enum Admission: Sendable, Equatable {
        /// An automatic recording the segmenter opened.
        case automatic(Open)
        /// A RECORD that has no row to take over (`open`: the recording it will take over if the consumer adopts it).
        case request(Request, open: Open?)
        /// A RECORD whose recording opened without a row (the one it meant to take over ended first).
        case late(Begin, open: Open)
    }

    /// The recorder's state.
    enum State: Sendable, Equatable {
        /// No recording is open; samples only go to the pre-roll window.
        case idle
        /// The store is admitting a row; its outcome is the next input.
        case admitting(Admission)
        /// Following a recording the segmenter opened (automatic) or that RECORD made explicit.
        case recording(Open)
        /// RECORD asked the consumer to begin; `open` is the recording being followed (adopted unless it ends first).
        case beginning(Begin, open: Open?)
        /// STOP, a disconnect or a refused late admission asked the consumer to close `open`.
        case ending(Open, token: Int)
        /// The device stream ended (a finished replay): nothing more can be recorded.
        case streamEnded
    }

    enum StoreOutcome: Sendable, Equatable {
        case started(RecordingID)
        /// The free plan's text and how many recordings are stored.
        case refused(reason: String, stored: Int)
        case failed(String)
        /// A finished row was committed.
        case committed(RecordingID)
        case commitFailed(RecordingID, String)
    }

    enum Input: Sendable, Equatable {
        case segment(SegmentEvent)
        case applied(PipelineCommandOutcome)
        case streamEnded
        /// RECORD; `save` false is a live-only view.
        case record(Request, save: Bool)
        case stop(ClientReference)
        case clientGone(id: Int)
        case shutdown
        case store(StoreOutcome)
    }

    /// Where the samples arriving now go.
    enum SampleRoute: Sendable, Equatable {
        case none
        case inside
        case held
    }

    /// A recording that ended, for the RECORDER report and the STOP replies.
    struct Finished: Sendable, Equatable {
        var id: RecordingID?
        var explicit: Bool
        var hand: Hand?
        var label: String?
        /// Efforts kept (the segmenter's final list, or a live view's).
        var efforts: Int
        var maxKilograms: Float?
        var averageKilograms: Float?
        /// A live-only view: its samples are the shell's view count.
        var liveView = false
    }

    /// What the row gets when it is finished.
    struct Finish: Sendable, Equatable {
        var id: RecordingID
        /// The segmenter's recording; nil when it never reached the recorder (shutdown with the feed lost).
        var recording: Recording?
    }

    enum Reply: Sendable, Equatable {
        case started(saving: Bool, id: RecordingID?)
        case refused(reason: String, stored: Int)
        case stopped(Finished)
        case error(String)
    }

    enum Report: Sendable, Equatable {
        case started(id: RecordingID?, explicit: Bool, hand: Hand?, label: String?)
        case refused(explicit: Bool, reason: String)
        case finished(Finished)
    }

    enum Action: Sendable, Equatable {
        /// Start following samples from `startMicros`: the window's samples from there count as the recording's.
        case follow(startMicros: Int64)
        /// Ask the free plan for a row (the outcome is the next input). `startMicros`: the recording's start when
        /// known (the row's start date is mapped from it), else now.
        case admit(startMicros: Int64?, hand: Hand?, label: String?)
        /// Store the followed recording's samples in this row from now on (and those since its start in the window).
        case attach(RecordingID)
        case describe(RecordingID, hand: Hand?, label: String?)
        /// Held-back samples belong to the recording (up to `through`, all when nil); the rest are dropped.
        case releaseHeld(through: Int64?)
        /// Commit the last samples and complete the row (the outcome is the next input).
        case finish(Finish)
        /// Remove a row admitted for a RECORD that never got its recording (it must not hold a free slot).
        case discardRow(RecordingID)
        /// Stop following samples (after a finish or a live view's end the shell forgets the counts).
        case forget
        case pipeline(PipelineCommand)
        case reply(ClientReference, Reply)
        case report(Report)
        /// STATUS changed.
        case publish
        /// Something the log should say (fixed message).
        case log(String)
        /// A live-only view opened (the shell counts its samples) or closed.
        case liveView(open: Bool)
    }

    private(set) var state = State.idle
    private(set) var liveView: LiveView?
    /// STOPs waiting for the recording to end, by end-command token.
    private(set) var stops: [(token: Int, client: ClientReference)] = []
    /// A finished row waiting for its commit outcome: the reports and replies to send then.
    private var committing: (finished: Finished, stops: [ClientReference])?
    /// A RECORD (and its `save`) that arrived while a recording was ending; handled once it has ended.
    private var deferred: (request: Request, save: Bool)?
    private var nextToken = 1

    // MARK: - Queries

    /// Where samples arriving now go.
    var sampleRoute: SampleRoute {
        guard let open = followed, open.startMicros != nil else { return .none }
        return open.holding ? .held : .inside
    }

    /// The recording being followed, in whatever state.
    var followed: Open? {
        switch state {
        case .idle, .streamEnded: nil
        case .admitting(.automatic(let open)), .admitting(.late(_, let open)): open
        case .admitting(.request(_, let open)): open
        case .recording(let open), .ending(let open, _): open
        case .beginning(let begin, let open): open ?? begin.claimed
        }
    }

    /// STATUS "recorder" (without the refusal text, which the shell keeps).
    /// The row of the recording being written, if any (a delete must not remove it under the writer).
    var openRecordingID: RecordingID? {
        switch state {
        case .recording(let open), .ending(let open, _): open.id
        case .beginning(_, let open): open?.id
        case .idle, .admitting, .streamEnded: nil
        }
    }

    var status: DaemonStatus.RecorderState {
        var status = DaemonStatus.RecorderState()
        let open = followed
        status.recording = open != nil || liveView != nil
        status.explicit = (open?.explicit ?? false) || liveView != nil
        status.saving = open?.id != nil
        status.id = open?.id?.rawValue
        return status
    }

    // MARK: - Transitions

    /// Applies one input; returns what the shell must do, in order.
    mutating func handle(_ input: Input) -> [Action] {
        var actions: [Action] = []
        switch input {
        case .segment(let event): segment(event, &actions)
        case .applied(let outcome): applied(outcome, &actions)
        case .streamEnded: streamEnded(&actions)
        case .record(let request, let save): record(request, save: save, &actions)
        case .stop(let client): stop(client, &actions)
        case .clientGone(let id): clientGone(id, &actions)
        case .shutdown: shutdown(&actions)
        case .store(let outcome): store(outcome, &actions)
        }
        return actions
    }

    // MARK: Segment events

    private mutating func segment(_ event: SegmentEvent, _ actions: inout [Action]) {
        switch event {
        case .recordingStarted(let start):
            recordingStarted(start, &actions)
        case .effortStarted:
            if followed?.holding == true { actions.append(.releaseHeld(through: nil)) }
            updateFollowed { $0.holding = false }
        case .effortEnded(let effort):
            liveView?.efforts.append(effort)
            updateFollowed { open in
                if !open.explicit && open.startMicros != nil { open.holding = true }
            }
        case .recordingEnded(let recording):
            recordingEnded(recording, &actions)
        }
    }

    private mutating func recordingStarted(_ start: Int64, _ actions: inout [Action]) {
        switch state {
        case .idle:
            let open = Open(startMicros: start)
            actions += [.follow(startMicros: start), .admit(startMicros: start, hand: nil, label: nil)]
            state = .admitting(.automatic(open))
        case .beginning(var begin, nil) where begin.claimed == nil:
            // The recording the consumer opens for this RECORD, or one that started while it waited: either way
            // it is this RECORD's recording, stored in its row.
            var open = Open(startMicros: start, explicit: true, owner: begin.request.client)
            open.hand = begin.request.hand
            open.label = begin.request.label
            actions.append(.follow(startMicros: start))
            if let id = begin.row {
                open.row = .stored(id)
                actions.append(.attach(id))
            }
            begin.claimed = open
            state = .beginning(begin, open: nil)
        case .recording(var open) where open.startMicros == nil:
            // An explicit recording that waited for the stream's first sample.
            open.startMicros = start
            actions.append(.follow(startMicros: start))
            if let id = open.id { actions.append(.attach(id)) }
            state = .recording(open)
            actions.append(.publish)
        case .ending(var open, let token) where open.startMicros == nil:
            open.startMicros = start
            actions.append(.follow(startMicros: start))
            if let id = open.id { actions.append(.attach(id)) }
            state = .ending(open, token: token)
        default:
            actions.append(.log("Recording started while another was followed"))
        }
    }

    private mutating func recordingEnded(_ recording: Recording, _ actions: inout [Action]) {
        switch state {
        case .recording(let open):
            state = .idle
            finish(open, recording, &actions)
        case .ending(let open, let token):
            state = .idle
            finish(open, recording, answering: token, &actions)
        case .beginning(let begin, let open?):
            // The recording RECORD meant to take over ended first (ending race): it is saved as it ended; the
            // RECORD gets the one the consumer opens next.
            state = .beginning(begin, open: nil)
            finish(open, recording, &actions)
        case .beginning(var begin, nil) where begin.claimed != nil:
            if let claimed = begin.claimed {
                begin.claimed = nil
                state = .beginning(begin, open: nil)
                finish(claimed, recording, &actions)
            }
        default:
            actions.append(.log("Recording ended that the recorder did not follow"))
        }
        runDeferred(&actions)
    }

    /// Applies `change` to the followed recording, wherever the state keeps it.
    private mutating func updateFollowed(_ change: (inout Open) -> Void) {
        switch state {
        case .recording(var open):
            change(&open)
            state = .recording(open)
        case .ending(var open, let token):
            change(&open)
            state = .ending(open, token: token)
        case .beginning(let begin, var open?):
            change(&open)
            state = .beginning(begin, open: open)
        case .beginning(var begin, nil):
            if var claimed = begin.claimed {
                change(&claimed)
                begin.claimed = claimed
                state = .beginning(begin, open: nil)
            }
        case .admitting(.automatic(var open)):
            change(&open)
            state = .admitting(.automatic(open))
        case .idle, .admitting, .streamEnded:
            break
        }
    }

    // MARK: Command outcomes

    private mutating func applied(_ outcome: PipelineCommandOutcome, _ actions: inout [Action]) {
        switch outcome {
        case .began(let token, let adopted):
            guard case .beginning(let begin, let followedOpen) = state, begin.token == token else { return }
            var open: Open
            var adoptedOpen = false
            if let claimed = begin.claimed {
                open = claimed
            } else if adopted, let followedOpen {
                open = followedOpen
                adoptedOpen = true
            } else {
                // Opens with the stream's first sample (none has arrived yet).
                open = Open(startMicros: nil)
                if let id = begin.row { open.row = .stored(id) }
            }
            open.explicit = true
            open.owner = begin.request.client
            if let hand = begin.request.hand { open.hand = hand }
            if let label = begin.request.label { open.label = label }
            if open.holding {
                // Explicit recordings keep everything up to their end.
                actions.append(.releaseHeld(through: nil))
                open.holding = false
            }
            if adoptedOpen, let extra = begin.row, extra != open.id {
                if open.id == nil {
                    open.row = .stored(extra)
                    actions.append(.attach(extra))
                } else {
                    actions.append(.discardRow(extra))
                }
            }
            if open.id == nil && begin.save {
                // Its own row: the recording it meant to take over was refused, failed or ended first.
                actions.append(.admit(startMicros: open.startMicros, hand: open.hand, label: open.label))
                state = .admitting(.late(begin, open: open))
                return
            }
            if adoptedOpen, let id = open.id, begin.request.hand != nil || begin.request.label != nil {
                actions.append(.describe(id, hand: begin.request.hand, label: begin.request.label))
            }
            started(open, begin, &actions)
        case .ended(let token):
            if case .ending(let open, let ending) = state, ending == token {
                // The consumer's closing events come before this outcome, so nothing closed it: it had no sample
                // yet (or the feed lost its end). Finish it as it is.
                state = .idle
                finish(open, nil, answering: token, &actions)
                runDeferred(&actions)
            }
            let unanswered = stops.filter { $0.token == token }
            stops.removeAll { $0.token == token }
            for stop in unanswered { actions.append(.reply(stop.client, .error("no recording in progress"))) }
        }
    }

    /// The RECORD's recording is settled: reply, report, and follow an end that was asked for meanwhile.
    private mutating func started(_ open: Open, _ begin: Begin, _ actions: inout [Action]) {
        actions += [
            .publish,
            .reply(begin.request.client, .started(saving: open.id != nil, id: open.id)),
            .report(.started(id: open.id, explicit: true, hand: open.hand, label: open.label)),
        ]
        if let endToken = begin.endToken {
            state = .ending(open, token: endToken)
        } else {
            state = .recording(open)
        }
    }

    // MARK: Requests

    private mutating func record(_ request: Request, save: Bool, _ actions: inout [Action]) {
        if case .streamEnded = state {
            return actions.append(.reply(request.client, .error(
                "no device stream: the replay has ended, so there is nothing to record")))
        }
        if let view = liveView {
            return actions.append(.reply(request.client, .error(Self.inProgress(view.request.client))))
        }
        switch state {
        case .beginning(let begin, _):
            return actions.append(.reply(request.client, .error(Self.inProgress(begin.request.client))))
        case .recording(let open) where open.explicit:
            return actions.append(.reply(request.client, .error(Self.inProgress(open.owner))))
        case .ending:
            if let waiting = deferred {
                return actions.append(.reply(request.client, .error(Self.inProgress(waiting.request.client))))
            }
            deferred = (request, save)
            return
        default:
            break
        }
        if !save, case .recording(let open) = state, open.id != nil {
            // The daemon is storing this recording by itself: a live-only request leaves it alone (same row, still
            // automatic, its own end) and watches beside it.
            liveView = LiveView(request: request)
            actions += [
                .liveView(open: true), .publish,
                .reply(request.client, .started(saving: false, id: nil)),
                .report(.started(id: nil, explicit: true, hand: request.hand, label: request.label)),
            ]
            return
        }
        if !save {
            // Nothing stored is open: an explicit recording that stores nothing (the daemon stores nothing by itself
            // while it lasts); an automatic recording the free plan refused becomes it.
            let token = takeToken()
            var begin = Begin(token: token, request: request)
            begin.save = false
            state = .beginning(begin, open: followed)
            return actions.append(.pipeline(.beginRecording(token: token)))
        }
        switch state {
        case .recording(let open) where open.id != nil:
            // Take over the automatic recording and its row (if the consumer still has it open).
            let token = takeToken()
            state = .beginning(Begin(token: token, request: request), open: open)
            actions.append(.pipeline(.beginRecording(token: token)))
        case .recording(let open):
            actions.append(.admit(startMicros: open.startMicros, hand: request.hand, label: request.label))
            state = .admitting(.request(request, open: open))
        case .idle:
            actions.append(.admit(startMicros: nil, hand: request.hand, label: request.label))
            state = .admitting(.request(request, open: nil))
        default:
            actions.append(.reply(request.client, .error("the recorder is busy; send RECORD again")))
        }
    }

    private static func inProgress(_ owner: ClientReference?) -> String {
        let by = owner.map { "started by pid \($0.pid)" } ?? "started by a client that has left"
        return "a recording is already in progress (explicit, \(by)); send STOP first"
    }

    private mutating func stop(_ client: ClientReference, _ actions: inout [Action]) {
        if liveView != nil { return endLiveView(answering: [client], &actions) }
        switch state {
        case .recording(let open):
            let token = takeToken()
            stops.append((token, client))
            state = .ending(open, token: token)
            actions.append(.pipeline(.endRecording(token: token)))
        case .ending(_, let token):
            stops.append((token, client))
        case .beginning(var begin, let open):
            let token = begin.endToken ?? takeToken()
            if begin.endToken == nil { actions.append(.pipeline(.endRecording(token: token))) }
            begin.endToken = token
            stops.append((token, client))
            state = .beginning(begin, open: open)
        default:
            actions.append(.reply(client, .error("no recording in progress")))
        }
    }

    private mutating func clientGone(_ id: Int, _ actions: inout [Action]) {
        stops.removeAll { $0.client.id == id }
        if deferred?.request.client.id == id { deferred = nil }
        if let view = liveView, view.request.client.id == id {
            actions.append(.log("Live-only recording stopped: its client disconnected"))
            endLiveView(answering: [], &actions)
        }
        switch state {
        case .recording(let open) where open.explicit && open.owner?.id == id:
            let token = takeToken()
            state = .ending(open, token: token)
            actions += [.log("Recording stopped: its client disconnected"), .pipeline(.endRecording(token: token))]
        case .beginning(var begin, let open) where begin.request.client.id == id && begin.endToken == nil:
            let token = takeToken()
            begin.endToken = token
            state = .beginning(begin, open: open)
            actions += [.log("Recording stopped: its client disconnected"), .pipeline(.endRecording(token: token))]
        default:
            break
        }
    }

    private mutating func streamEnded(_ actions: inout [Action]) {
        closeEverything(because: "the device stream ended before the recording started", &actions)
        state = .streamEnded
        actions.append(.publish)
    }

    private mutating func shutdown(_ actions: inout [Action]) {
        if followed != nil { actions.append(.log("Recording still open at shutdown; finishing it with the samples received")) }
        closeEverything(because: "the daemon is shutting down", &actions)
        state = .streamEnded
    }

    /// The stream is over: finishes what is open, answers what waits.
    private mutating func closeEverything(because reason: String, _ actions: inout [Action]) {
        let previous = state
        state = .idle
        switch previous {
        case .recording(let open):
            finish(open, nil, &actions)
        case .ending(let open, let token):
            finish(open, nil, answering: token, &actions)
        case .beginning(let begin, let open):
            if let open = open ?? begin.claimed { finish(open, nil, &actions) }
            if let id = begin.row, begin.claimed == nil { actions.append(.discardRow(id)) }
            actions.append(.reply(begin.request.client, .error("no recording started: \(reason)")))
        case .admitting, .idle, .streamEnded:
            break
        }
        if liveView != nil { endLiveView(answering: [], &actions) }
        if let waiting = deferred {
            deferred = nil
            actions.append(.reply(waiting.request.client, .error("no recording started: \(reason)")))
        }
        for stop in stops { actions.append(.reply(stop.client, .error("no recording in progress"))) }
        stops.removeAll()
    }

    // MARK: Store outcomes

    private mutating func store(_ outcome: StoreOutcome, _ actions: inout [Action]) {
        switch outcome {
        case .committed, .commitFailed:
            guard let (finished, waiting) = committing else { return }
            committing = nil
            var reported = finished
            if case .commitFailed = outcome { reported.id = nil }
            report(reported, to: waiting, &actions)
            return
        case .started, .refused, .failed:
            break
        }
        guard case .admitting(let admission) = state else {
            if case .started(let id) = outcome { actions.append(.discardRow(id)) }
            return
        }
        switch (admission, outcome) {
        case (.automatic(var open), .started(let id)):
            open.row = .stored(id)
            state = .recording(open)
            actions += [.attach(id), .publish, .report(.started(id: id, explicit: false, hand: nil, label: nil))]
        case (.automatic(var open), .refused(let reason, _)):
            open.row = .refused
            state = .recording(open)
            actions += [.publish, .report(.refused(explicit: false, reason: reason))]
        case (.automatic(var open), _):
            open.row = .failed
            state = .recording(open)
            actions.append(.publish)

        case (.request(let request, let open), .started(let id)):
            let token = takeToken()
            state = .beginning(Begin(token: token, request: request, row: id), open: open)
            actions.append(.pipeline(.beginRecording(token: token)))
        case (.request(let request, let open), .refused(let reason, let stored)):
            state = open.map { .recording($0) } ?? .idle
            actions += [.publish, .reply(request.client, .refused(reason: reason, stored: stored))]
        case (.request(let request, let open), _):
            state = open.map { .recording($0) } ?? .idle
            if case .failed(let message) = outcome { actions.append(.reply(request.client, .error(message))) }

        case (.late(let begin, var open), .started(let id)):
            open.row = .stored(id)
            actions.append(.attach(id))
            started(open, begin, &actions)
        case (.late(let begin, var open), .refused(let reason, let stored)):
            // Nothing is stored and the consumer's explicit recording is closed again, without reports.
            open.explicit = false
            open.silent = true
            open.row = .refused
            let token = begin.endToken ?? takeToken()
            if begin.endToken == nil { actions.append(.pipeline(.endRecording(token: token))) }
            state = .ending(open, token: token)
            actions += [.publish, .reply(begin.request.client, .refused(reason: reason, stored: stored))]
        case (.late(let begin, var open), _):
            open.explicit = false
            open.silent = true
            open.row = .failed
            let token = begin.endToken ?? takeToken()
            if begin.endToken == nil { actions.append(.pipeline(.endRecording(token: token))) }
            state = .ending(open, token: token)
            if case .failed(let message) = outcome { actions.append(.reply(begin.request.client, .error(message))) }
        }
    }

    // MARK: Finishing

    private mutating func finish(_ open: Open, _ recording: Recording?, answering token: Int? = nil, _ actions: inout [Action]) {
        let waiting = token.map { token in stops.filter { $0.token == token }.map(\.client) } ?? []
        if let token { stops.removeAll { $0.token == token } }
        if open.holding {
            // Held samples belong to the recording up to the segmenter's end; without it, only those it confirmed.
            actions.append(.releaseHeld(through: recording?.endMicros ?? Int64.min))
        }
        let finished = Finished(
            id: open.id, explicit: open.explicit, hand: open.hand, label: open.label,
            efforts: recording?.efforts.count ?? 0, maxKilograms: recording?.maxKg,
            averageKilograms: recording?.averageKg)
        if let id = open.id {
            actions.append(.finish(Finish(id: id, recording: recording)))
            committing = (finished, waiting)
            actions.append(.forget)
            return
        }
        if open.silent || (open.row == .refused && !open.explicit) || (open.row == .failed && !open.explicit) {
            // Nothing was stored and nobody asked for it: no reports (the refusal was reported when it started).
            actions.append(.publish)
            for client in waiting { actions.append(.reply(client, .stopped(finished))) }
        } else {
            report(finished, to: waiting, &actions)
        }
        actions.append(.forget)
    }

    private func report(_ finished: Finished, to waiting: [ClientReference], _ actions: inout [Action]) {
        actions += [.publish, .report(.finished(finished))]
        for client in waiting { actions.append(.reply(client, .stopped(finished))) }
    }

    private mutating func endLiveView(answering clients: [ClientReference], _ actions: inout [Action]) {
        guard let view = liveView else { return }
        liveView = nil
        let scored = Recording(startMicros: 0, endMicros: 0, efforts: view.efforts, falseStartsDropped: 0)
        let finished = Finished(
            id: nil, explicit: true, hand: view.request.hand, label: view.request.label, efforts: view.efforts.count,
            maxKilograms: scored.maxKg, averageKilograms: scored.averageKg, liveView: true)
        actions.append(.liveView(open: false))
        report(finished, to: clients, &actions)
    }

    /// A RECORD that waited for the previous recording to end.
    private mutating func runDeferred(_ actions: inout [Action]) {
        guard case .idle = state, let waiting = deferred else { return }
        deferred = nil
        record(waiting.request, save: waiting.save, &actions)
    }

    private mutating func takeToken() -> Int {
        defer { nextToken += 1 }
        return nextToken
    }
}
