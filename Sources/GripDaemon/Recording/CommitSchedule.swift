/// When the recorder commits a stored recording's samples, as a value: it reads no clock (every call is given
/// `now`) and touches no store. ``RecorderLoop`` asks it what a wake-up commits and when to wake next, and tells it
/// what the feed and the store answered.
///
/// While a stored recording's samples flow, the feed does not wake the recorder for them (it takes them
/// `.onOwnSchedule`), so a commit tick every `maxWait` keeps the crash-loss bound: a sample waits at most one tick
/// before its commit. A tick whose take finds no samples ends the ticking; the feed then wakes the recorder on the
/// next sample. While the store refuses writes (``StorageTrouble``), its retry replaces the tick.
struct CommitSchedule {
    /// While nothing is recorded, samples only fill the pre-roll window: they wake the recorder in batches this big
    /// (~50 s at 80 Hz, well inside the hand-off's 65,536), or with the next event.
    static let preRollBacklog = 4096

    /// What a wake-up commits.
    enum Work: Equatable {
        case nothing
        /// One attempt to commit everything held while the store refuses writes.
        case retry
        /// The tick: everything the writer holds.
        case everything
        /// What the writer's own deadline makes due.
        case dueChunks
    }

    private(set) var tick: ContinuousClock.Instant?
    /// Set while the store refuses writes.
    private(set) var trouble: StorageTrouble?
    /// What the last take asked the feed, and whether the feed now counts on the recorder's schedule.
    private var lastSampleWake = RecorderFeed.SampleWake.any
    private var feedOnSchedule = false

    /// What the next take asks the feed: no wake per sample while a stored recording's samples flow (the tick
    /// takes them), a pre-roll backlog otherwise.
    mutating func sampleWake(storing: Bool) -> RecorderFeed.SampleWake {
        lastSampleWake = storing ? .onOwnSchedule : .backlog(Self.preRollBacklog)
        return lastSampleWake
    }

    /// The take's answer: whether the feed now counts on the recorder's schedule.
    mutating func took(feedOnSchedule: Bool) {
        self.feedOnSchedule = feedOnSchedule
    }

    /// When the recorder must wake by itself: the retry while the store fails, else the tick or the writer's own
    /// deadline; nil when nothing waits to be committed.
    func deadline(writerDeadline: ContinuousClock.Instant?) -> ContinuousClock.Instant? {
        if let trouble { return trouble.retryAt }
        return [tick, writerDeadline].compactMap { $0 }.min()
    }

    /// `poll(2)`'s timeout until `deadline` (-1: none), rounded up so the wake-up is not early, and at most a minute.
    static func pollTimeout(until deadline: ContinuousClock.Instant?, now: ContinuousClock.Instant) -> Int32 {
        guard let deadline else { return -1 }
        let due = deadline - now
        let millis = due.components.seconds * 1000 + due.components.attoseconds / 1_000_000_000_000_000
        return Int32(max(0, min(millis + 1, 60_000)))
    }

    /// What the wake-up at `now` commits; `storing`: a stored recording's writer is open.
    mutating func work(at now: ContinuousClock.Instant, storing: Bool) -> Work {
        if let trouble { return trouble.isDue(now) ? .retry : .nothing }
        guard storing else {
            tick = nil
            return .nothing
        }
        if let tick, now >= tick { return .everything }
        return .dueChunks
    }

    /// The tick's commit went through.
    mutating func committedEverything() {
        tick = nil
    }

    /// After a wake-up's commit: the next tick, while the feed counts on it and after a take made before this
    /// recording opened (which asked for a backlog wake only); the first tick's take then asks for `.onOwnSchedule`.
    mutating func scheduleTick(now: ContinuousClock.Instant, every maxWait: Duration) {
        if tick == nil && (feedOnSchedule || lastSampleWake != .onOwnSchedule) {
            tick = now + maxWait
        }
    }

    /// A commit failed: the trouble it begins, or nil when the store was already in trouble (its retry stands).
    mutating func commitFailed(problem: String, now: ContinuousClock.Instant) -> StorageTrouble? {
        guard trouble == nil else { return nil }
        trouble = StorageTrouble(problem: problem, now: now)
        return trouble
    }

    /// A retry failed: the next one backs off. Returns whether the problem's text changed (worth a log line).
    mutating func retryFailed(problem: String, now: ContinuousClock.Instant) -> Bool {
        trouble?.failedAgain(problem: problem, now: now) ?? false
    }

    /// A retry went through: the store accepts writes again.
    mutating func recovered() {
        trouble = nil
    }
}
