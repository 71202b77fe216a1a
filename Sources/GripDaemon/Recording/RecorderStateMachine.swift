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
///
/// **All of its state is in ``state``**: what a STOP waits for lives in the end it waits for (``End``), a RECORD that
/// waits for a recording's end lives in ``State/ending(_:_:deferred:)``, a live-only view wraps the state beside it
/// (``State/viewing(_:beside:)``) and a finished row awaiting its commit wraps the state that follows
/// (``State/committing(_:then:)``). The one stored property besides it is the command token counter.
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

    /// What kind of recording is open: who ends it, which samples it keeps and what it reports.
    enum Kind: Sendable, Equatable {
        /// Opened and ended by the segmenter. `holding` after an effort ended: new samples are held back until the
        /// segmenter says whether the recording goes on.
        case automatic(holding: Bool)
        /// Made explicit by a RECORD (its client, hand and label): it ends at STOP or its client's disconnect and
        /// keeps every sample up to its end, so it never holds any back.
        case explicit(Request)
        /// A RECORD's recording whose own row the store refused or failed after all: the consumer is asked to close
        /// it again, it holds samples back like an automatic one, and it ends without reports.
        case withdrawn(Request, holding: Bool)
    }

    /// The recording the segmenter has open, as the recorder follows it.
    struct Open: Sendable, Equatable {
        /// First instant (stream µs); nil while an explicit recording waits for the stream's first sample.
        var startMicros: Int64?
        var kind: Kind
        var row = Row.none

        var id: RecordingID? { if case .stored(let id) = row { id } else { nil } }

        var explicit: Bool { if case .explicit = kind { true } else { false } }

        /// The RECORD it answers, if any: its client, hand and label.
        var request: Request? {
            switch kind {
            case .automatic: nil
            case .explicit(let request), .withdrawn(let request, _): request
            }
        }

        /// New samples wait for the segmenter's decision instead of joining the recording.
        var holding: Bool {
            switch kind {
            case .automatic(let holding), .withdrawn(_, let holding): holding
            case .explicit: false
            }
        }

        /// Starts or stops holding samples back; an explicit recording keeps them all, so it never holds.
        mutating func hold(_ holding: Bool) {
            switch kind {
            case .automatic: kind = .automatic(holding: holding)
            case .withdrawn(let request, _): kind = .withdrawn(request, holding: holding)
            case .explicit: break
            }
        }

        /// Nothing was stored and nobody asked for it, so its end is not reported (a refusal was reported when it
        /// started).
        var endsUnreported: Bool {
            switch kind {
            case .automatic: row == .refused || row == .failed
            case .explicit: false
            case .withdrawn: true
            }
        }
    }

    /// An end command sent to the consumer, and the STOPs answered when it has ended.
    struct End: Sendable, Equatable {
        var token: Int
        var stops: [ClientReference] = []
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
        var end: End?
        /// False for a live-only explicit recording (nothing open was being stored): it never gets a row.
        var save = true
    }

    /// A RECORD that arrived while a recording was ending: handled once it has ended.
    struct Deferred: Sendable, Equatable {
        var request: Request
        var save: Bool
    }

    /// A live-only RECORD (`save: false`) while an automatic recording is being stored: a view with its own summary
    /// that leaves that recording alone.
    struct LiveView: Sendable, Equatable {
        var request: Request
        /// Efforts that ended while it was open (provisional: no false-start removal).
        var efforts: [Effort] = []
    }

    /// A finished row waiting for its commit outcome: what to report then, and the STOPs to answer.
    struct Commit: Sendable, Equatable {
        var finished: Finished
        var stops: [ClientReference]
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
        /// STOP, a disconnect or a withdrawn recording asked the consumer to close `open` (`End`); `deferred`: a
        /// RECORD that arrived meanwhile.
        case ending(Open, End, deferred: Deferred?)
        /// The device stream ended (a finished replay): nothing more can be recorded.
        case streamEnded
        /// A live-only view beside the recorder's own state, which is then idle, admitting or following an
        /// automatic recording (RECORD and STOP go to the view while it is open).
        indirect case viewing(LiveView, beside: State)
        /// A finished row whose commit outcome is the next input (its reports wait for it); `then` is the state the
        /// finish left, which the outcome uncovers.
        indirect case committing(Commit, then: State)

        /// The recording being followed, in whatever state.
        var followed: Open? {
            switch self {
            case .idle, .streamEnded: nil
            case .admitting(.automatic(let open)), .admitting(.late(_, let open)): open
            case .admitting(.request(_, let open)): open
            case .recording(let open), .ending(let open, _, _): open
            case .beginning(let begin, let open): open ?? begin.claimed
            case .viewing(_, let inner), .committing(_, let inner): inner.followed
            }
        }

        /// The open live-only view, if any.
        var liveView: LiveView? {
            switch self {
            case .viewing(let view, _): view
            case .committing(_, let inner): inner.liveView
            default: nil
            }
        }

        /// The recorder's own state, without a commit awaited before it or a view beside it.
        var unwrapped: State {
            switch self {
            case .viewing(_, let inner), .committing(_, let inner): inner.unwrapped
            default: self
            }
        }
    }

    enum StoreOutcome: Sendable, Equatable {
        case started(RecordingID)
        /// The free plan's text and how many recordings are stored.
        case refused(reason: String, stored: Int)
        case failed(String)
        /// A finished row was committed.
        case committed(RecordingID)
        case commitFailed(RecordingID, String)
        /// A finished row held no effort (no pull was seen): it was deleted, so it takes no slot of the free plan.
        case discarded(RecordingID)
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
        /// Not saved because it held no effort (its row was deleted).
        var nothingRecorded = false
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
    /// The next command's token. A counter rather than part of a state: it must only grow across every recording, so
    /// an outcome of an old command never matches a newer one.
    private var nextToken = 1

    // MARK: - Queries

    /// Where samples arriving now go.
    var sampleRoute: SampleRoute {
        guard let open = followed, open.startMicros != nil else { return .none }
        return open.holding ? .held : .inside
    }

    /// The recording being followed, in whatever state.
    var followed: Open? { state.followed }

    /// The row of the recording being written, if any (a delete must not remove it under the writer).
    var openRecordingID: RecordingID? {
        switch state.unwrapped {
        case .recording(let open), .ending(let open, _, _): open.id
        case .beginning(_, let open): open?.id
        default: nil
        }
    }

    /// STATUS "recorder" (without the refusal text, which the shell keeps).
    var status: DaemonStatus.RecorderState {
        var status = DaemonStatus.RecorderState()
        let open = followed
        let viewing = state.liveView != nil
        status.recording = open != nil || viewing
        status.explicit = (open?.explicit ?? false) || viewing
        status.saving = open?.id != nil
        status.id = open?.id?.rawValue
        return status
    }

    // MARK: - Transitions

    /// One input's work: the actions so far, and the awaited commit and live view while ``state`` holds the
    /// recorder's own state alone (both wrap it again when the input is handled).
    private struct Step {
        var actions: [Action] = []
        var commit: Commit?
        var view: LiveView?
    }

    /// Applies one input; returns what the shell must do, in order.
    mutating func handle(_ input: Input) -> [Action] {
        var step = Step()
        if case .committing(let commit, let then) = state {
            step.commit = commit
            state = then
        }
        if case .viewing(let view, let beside) = state {
            step.view = view
            state = beside
        }
        switch input {
        case .segment(let event): segment(event, &step)
        case .applied(let outcome): applied(outcome, &step)
        case .streamEnded: streamEnded(&step)
        case .record(let request, let save): record(request, save: save, &step)
        case .stop(let client): stop(client, &step)
        case .clientGone(let id): clientGone(id, &step)
        case .shutdown: shutdown(&step)
        case .store(let outcome): store(outcome, &step)
        }
        if let view = step.view { state = .viewing(view, beside: state) }
        if let commit = step.commit { state = .committing(commit, then: state) }
        return step.actions
    }

    // MARK: Segment events

    private mutating func segment(_ event: SegmentEvent, _ step: inout Step) {
        switch event {
        case .recordingStarted(let start):
            recordingStarted(start, &step)
        case .effortStarted:
            if followed?.holding == true { step.actions.append(.releaseHeld(through: nil)) }
            updateFollowed { $0.hold(false) }
        case .effortEnded(let effort):
            step.view?.efforts.append(effort)
            updateFollowed { open in
                if open.startMicros != nil { open.hold(true) }
            }
        case .recordingEnded(let recording):
            recordingEnded(recording, &step)
        }
    }

    private mutating func recordingStarted(_ start: Int64, _ step: inout Step) {
        switch state {
        case .idle:
            step.actions += [.follow(startMicros: start), .admit(startMicros: start, hand: nil, label: nil)]
            state = .admitting(.automatic(Open(startMicros: start, kind: .automatic(holding: false))))
        case .beginning(var begin, nil) where begin.claimed == nil:
            // The recording the consumer opens for this RECORD, or one that started while it waited: either way
            // it is this RECORD's recording, stored in its row.
            var open = Open(startMicros: start, kind: .explicit(begin.request))
            step.actions.append(.follow(startMicros: start))
            if let id = begin.row {
                open.row = .stored(id)
                step.actions.append(.attach(id))
            }
            begin.claimed = open
            state = .beginning(begin, open: nil)
        case .recording(var open) where open.startMicros == nil:
            // An explicit recording that waited for the stream's first sample.
            open.startMicros = start
            step.actions.append(.follow(startMicros: start))
            if let id = open.id { step.actions.append(.attach(id)) }
            state = .recording(open)
            step.actions.append(.publish)
        case .ending(var open, let end, let deferred) where open.startMicros == nil:
            open.startMicros = start
            step.actions.append(.follow(startMicros: start))
            if let id = open.id { step.actions.append(.attach(id)) }
            state = .ending(open, end, deferred: deferred)
        default:
            step.actions.append(.log("Recording started while another was followed"))
        }
    }

    private mutating func recordingEnded(_ recording: Recording, _ step: inout Step) {
        switch state {
        case .recording(let open):
            state = .idle
            finish(open, recording, &step)
        case .ending(let open, let end, let deferred):
            state = .idle
            finish(open, recording, answering: end.stops, &step)
            runDeferred(deferred, &step)
        case .beginning(let begin, let open?):
            // The recording RECORD meant to take over ended first (ending race): it is saved as it ended; the
            // RECORD gets the one the consumer opens next.
            state = .beginning(begin, open: nil)
            finish(open, recording, &step)
        case .beginning(var begin, nil) where begin.claimed != nil:
            if let claimed = begin.claimed {
                begin.claimed = nil
                state = .beginning(begin, open: nil)
                finish(claimed, recording, &step)
            }
        default:
            step.actions.append(.log("Recording ended that the recorder did not follow"))
        }
    }

    /// Applies `change` to the followed recording, wherever the state keeps it.
    private mutating func updateFollowed(_ change: (inout Open) -> Void) {
        switch state {
        case .recording(var open):
            change(&open)
            state = .recording(open)
        case .ending(var open, let end, let deferred):
            change(&open)
            state = .ending(open, end, deferred: deferred)
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
        case .idle, .admitting, .streamEnded, .viewing, .committing:
            break
        }
    }

    // MARK: Command outcomes

    private mutating func applied(_ outcome: PipelineCommandOutcome, _ step: inout Step) {
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
                open = Open(startMicros: nil, kind: .explicit(begin.request))
                if let id = begin.row { open.row = .stored(id) }
            }
            if open.holding {
                // Explicit recordings keep everything up to their end.
                step.actions.append(.releaseHeld(through: nil))
            }
            open.kind = .explicit(begin.request)
            if adoptedOpen, let extra = begin.row, extra != open.id {
                if open.id == nil {
                    open.row = .stored(extra)
                    step.actions.append(.attach(extra))
                } else {
                    step.actions.append(.discardRow(extra))
                }
            }
            if open.id == nil && begin.save {
                // Its own row: the recording it meant to take over was refused, failed or ended first.
                step.actions.append(.admit(startMicros: open.startMicros, hand: begin.request.hand, label: begin.request.label))
                state = .admitting(.late(begin, open: open))
                return
            }
            if adoptedOpen, let id = open.id, begin.request.hand != nil || begin.request.label != nil {
                step.actions.append(.describe(id, hand: begin.request.hand, label: begin.request.label))
            }
            started(open, begin, &step)
        case .ended(let token):
            switch state {
            case .ending(let open, let end, let deferred) where end.token == token:
                // The consumer's closing events come before this outcome, so nothing closed it: it had no sample
                // yet (or the feed lost its end). Finish it as it is.
                state = .idle
                finish(open, nil, answering: end.stops, &step)
                runDeferred(deferred, &step)
            case .beginning(var begin, let open) where begin.end?.token == token:
                // The consumer ended nothing this RECORD began: its STOPs are answered that nothing is recording.
                for client in begin.end?.stops ?? [] {
                    step.actions.append(.reply(client, .error("no recording in progress")))
                }
                begin.end?.stops.removeAll()
                state = .beginning(begin, open: open)
            default:
                break
            }
        }
    }

    /// The RECORD's recording is settled: reply, report, and follow an end that was asked for meanwhile.
    private mutating func started(_ open: Open, _ begin: Begin, _ step: inout Step) {
        step.actions += [
            .publish,
            .reply(begin.request.client, .started(saving: open.id != nil, id: open.id)),
            .report(.started(id: open.id, explicit: true, hand: begin.request.hand, label: begin.request.label)),
        ]
        if let end = begin.end {
            state = .ending(open, end, deferred: nil)
        } else {
            state = .recording(open)
        }
    }

    // MARK: Requests

    private mutating func record(_ request: Request, save: Bool, _ step: inout Step) {
        if case .streamEnded = state {
            return step.actions.append(.reply(request.client, .error(
                "no device stream: the replay has ended, so there is nothing to record")))
        }
        if let view = step.view {
            return step.actions.append(.reply(request.client, .error(Self.inProgress(view.request.client))))
        }
        switch state {
        case .beginning(let begin, _):
            return step.actions.append(.reply(request.client, .error(Self.inProgress(begin.request.client))))
        case .recording(let open):
            if case .explicit(let owner) = open.kind {
                return step.actions.append(.reply(request.client, .error(Self.inProgress(owner.client))))
            }
        case .ending(let open, let end, let deferred):
            if let waiting = deferred {
                return step.actions.append(.reply(request.client, .error(Self.inProgress(waiting.request.client))))
            }
            state = .ending(open, end, deferred: Deferred(request: request, save: save))
            return
        default:
            break
        }
        if !save, case .recording(let open) = state, open.id != nil {
            // The daemon is storing this recording by itself: a live-only request leaves it alone (same row, still
            // automatic, its own end) and watches beside it.
            step.view = LiveView(request: request)
            step.actions += [
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
            state = .beginning(Begin(token: token, request: request, save: false), open: followed)
            return step.actions.append(.pipeline(.beginRecording(token: token)))
        }
        switch state {
        case .recording(let open) where open.id != nil:
            // Take over the automatic recording and its row (if the consumer still has it open).
            let token = takeToken()
            state = .beginning(Begin(token: token, request: request), open: open)
            step.actions.append(.pipeline(.beginRecording(token: token)))
        case .recording(let open):
            step.actions.append(.admit(startMicros: open.startMicros, hand: request.hand, label: request.label))
            state = .admitting(.request(request, open: open))
        case .idle:
            step.actions.append(.admit(startMicros: nil, hand: request.hand, label: request.label))
            state = .admitting(.request(request, open: nil))
        default:
            step.actions.append(.reply(request.client, .error("the recorder is busy; send RECORD again")))
        }
    }

    private static func inProgress(_ owner: ClientReference) -> String {
        "a recording is already in progress (explicit, started by pid \(owner.pid)); send STOP first"
    }

    private mutating func stop(_ client: ClientReference, _ step: inout Step) {
        if let view = step.view { return endLiveView(view, answering: [client], &step) }
        switch state {
        case .recording(let open):
            var end = askToEnd(&step)
            end.stops.append(client)
            state = .ending(open, end, deferred: nil)
        case .ending(let open, var end, let deferred):
            end.stops.append(client)
            state = .ending(open, end, deferred: deferred)
        case .beginning(var begin, let open):
            var end = begin.end ?? askToEnd(&step)
            end.stops.append(client)
            begin.end = end
            state = .beginning(begin, open: open)
        default:
            step.actions.append(.reply(client, .error("no recording in progress")))
        }
    }

    private mutating func clientGone(_ id: Int, _ step: inout Step) {
        forgetRequests(of: id)
        if let view = step.view, view.request.client.id == id {
            step.actions.append(.log("Live-only recording stopped: its client disconnected"))
            endLiveView(view, answering: [], &step)
        }
        switch state {
        case .recording(let open) where open.request?.client.id == id && open.explicit:
            step.actions.append(.log("Recording stopped: its client disconnected"))
            let end = askToEnd(&step)
            state = .ending(open, end, deferred: nil)
        case .beginning(var begin, let open) where begin.request.client.id == id && begin.end == nil:
            step.actions.append(.log("Recording stopped: its client disconnected"))
            begin.end = askToEnd(&step)
            state = .beginning(begin, open: open)
        default:
            break
        }
    }

    /// A client that left is answered nothing: its STOPs and the RECORD it left waiting are dropped.
    private mutating func forgetRequests(of id: Int) {
        switch state {
        case .ending(let open, var end, var deferred):
            end.stops.removeAll { $0.id == id }
            if deferred?.request.client.id == id { deferred = nil }
            state = .ending(open, end, deferred: deferred)
        case .beginning(var begin, let open):
            begin.end?.stops.removeAll { $0.id == id }
            state = .beginning(begin, open: open)
        default:
            break
        }
    }

    /// Asks the consumer to close its recording: a new end command, with no STOP waiting yet.
    private mutating func askToEnd(_ step: inout Step) -> End {
        let end = End(token: takeToken())
        step.actions.append(.pipeline(.endRecording(token: end.token)))
        return end
    }

    private mutating func streamEnded(_ step: inout Step) {
        closeEverything(because: "the device stream ended before the recording started", &step)
        state = .streamEnded
        step.actions.append(.publish)
    }

    private mutating func shutdown(_ step: inout Step) {
        if followed != nil {
            step.actions.append(.log("Recording still open at shutdown; finishing it with the samples received"))
        }
        closeEverything(because: "the daemon is shutting down", &step)
        state = .streamEnded
    }

    /// The stream is over: finishes what is open, answers what waits.
    private mutating func closeEverything(because reason: String, _ step: inout Step) {
        let previous = state
        state = .idle
        var deferred: Deferred?
        var unansweredStops: [ClientReference] = []
        switch previous {
        case .recording(let open):
            finish(open, nil, &step)
        case .ending(let open, let end, let waiting):
            finish(open, nil, answering: end.stops, &step)
            deferred = waiting
        case .beginning(let begin, let open):
            if let open = open ?? begin.claimed { finish(open, nil, &step) }
            if let id = begin.row, begin.claimed == nil { step.actions.append(.discardRow(id)) }
            step.actions.append(.reply(begin.request.client, .error("no recording started: \(reason)")))
            unansweredStops = begin.end?.stops ?? []
        default:
            break
        }
        if let view = step.view { endLiveView(view, answering: [], &step) }
        if let deferred {
            step.actions.append(.reply(deferred.request.client, .error("no recording started: \(reason)")))
        }
        for client in unansweredStops { step.actions.append(.reply(client, .error("no recording in progress"))) }
    }

    // MARK: Store outcomes

    private mutating func store(_ outcome: StoreOutcome, _ step: inout Step) {
        switch outcome {
        case .committed, .commitFailed, .discarded:
            guard let commit = step.commit else { return }
            step.commit = nil
            var reported = commit.finished
            switch outcome {
            case .commitFailed: reported.id = nil
            case .discarded:
                reported.id = nil
                reported.nothingRecorded = true
            default: break
            }
            report(reported, to: commit.stops, &step)
            return
        case .started, .refused, .failed:
            break
        }
        guard case .admitting(let admission) = state else {
            if case .started(let id) = outcome { step.actions.append(.discardRow(id)) }
            return
        }
        switch (admission, outcome) {
        case (.automatic(var open), .started(let id)):
            open.row = .stored(id)
            state = .recording(open)
            step.actions += [.attach(id), .publish, .report(.started(id: id, explicit: false, hand: nil, label: nil))]
        case (.automatic(var open), .refused(let reason, _)):
            open.row = .refused
            state = .recording(open)
            step.actions += [.publish, .report(.refused(explicit: false, reason: reason))]
        case (.automatic(var open), _):
            open.row = .failed
            state = .recording(open)
            step.actions.append(.publish)

        case (.request(let request, let open), .started(let id)):
            let token = takeToken()
            state = .beginning(Begin(token: token, request: request, row: id), open: open)
            step.actions.append(.pipeline(.beginRecording(token: token)))
        case (.request(let request, let open), .refused(let reason, let stored)):
            state = open.map { .recording($0) } ?? .idle
            step.actions += [.publish, .reply(request.client, .refused(reason: reason, stored: stored))]
        case (.request(let request, let open), _):
            state = open.map { .recording($0) } ?? .idle
            if case .failed(let message) = outcome { step.actions.append(.reply(request.client, .error(message))) }

        case (.late(let begin, var open), .started(let id)):
            open.row = .stored(id)
            step.actions.append(.attach(id))
            started(open, begin, &step)
        case (.late(let begin, let open), .refused(let reason, let stored)):
            withdraw(open, of: begin, row: .refused, &step)
            step.actions += [.publish, .reply(begin.request.client, .refused(reason: reason, stored: stored))]
        case (.late(let begin, let open), _):
            withdraw(open, of: begin, row: .failed, &step)
            if case .failed(let message) = outcome {
                step.actions.append(.reply(begin.request.client, .error(message)))
            }
        }
    }

    /// Nothing is stored for the RECORD after all, and the consumer's explicit recording is closed again, without
    /// reports.
    private mutating func withdraw(_ open: Open, of begin: Begin, row: Row, _ step: inout Step) {
        var open = open
        open.kind = .withdrawn(begin.request, holding: false)
        open.row = row
        let end = begin.end ?? askToEnd(&step)
        state = .ending(open, end, deferred: nil)
    }

    // MARK: Finishing

    private func finish(
        _ open: Open, _ recording: Recording?, answering waiting: [ClientReference] = [], _ step: inout Step
    ) {
        if open.holding {
            // Held samples belong to the recording up to the segmenter's end; without it, only those it confirmed.
            step.actions.append(.releaseHeld(through: recording?.endMicros ?? Int64.min))
        }
        let finished = Finished(
            id: open.id, explicit: open.explicit, hand: open.request?.hand, label: open.request?.label,
            efforts: recording?.efforts.count ?? 0, maxKilograms: recording?.maxKg,
            averageKilograms: recording?.averageKg)
        if let id = open.id {
            step.actions.append(.finish(Finish(id: id, recording: recording)))
            step.commit = Commit(finished: finished, stops: waiting)
            step.actions.append(.forget)
            return
        }
        if open.endsUnreported {
            step.actions.append(.publish)
            for client in waiting { step.actions.append(.reply(client, .stopped(finished))) }
        } else {
            report(finished, to: waiting, &step)
        }
        step.actions.append(.forget)
    }

    private func report(_ finished: Finished, to waiting: [ClientReference], _ step: inout Step) {
        step.actions += [.publish, .report(.finished(finished))]
        for client in waiting { step.actions.append(.reply(client, .stopped(finished))) }
    }

    private func endLiveView(_ view: LiveView, answering clients: [ClientReference], _ step: inout Step) {
        step.view = nil
        let scored = Recording(startMicros: 0, endMicros: 0, efforts: view.efforts, falseStartsDropped: 0)
        let finished = Finished(
            id: nil, explicit: true, hand: view.request.hand, label: view.request.label, efforts: view.efforts.count,
            maxKilograms: scored.maxKg, averageKilograms: scored.averageKg, liveView: true)
        step.actions.append(.liveView(open: false))
        report(finished, to: clients, &step)
    }

    /// A RECORD that waited for the previous recording to end.
    private mutating func runDeferred(_ deferred: Deferred?, _ step: inout Step) {
        guard case .idle = state, let deferred else { return }
        record(deferred.request, save: deferred.save, &step)
    }

    private mutating func takeToken() -> Int {
        defer { nextToken += 1 }
        return nextToken
    }
}
