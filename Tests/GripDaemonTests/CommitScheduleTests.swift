import Testing

@testable import GripDaemon

/// When the recorder commits, as values: the tick, the wake the feed is asked for, and the storage retry's backoff.
@Suite("Commit schedule")
struct CommitScheduleTests {
    static let start = ContinuousClock.now
    static let tick = Duration.milliseconds(500)

    static func at(_ milliseconds: Int) -> ContinuousClock.Instant { start + .milliseconds(milliseconds) }

    @Test("nothing stored open: a backlog wake, no tick and no timeout")
    func idle() {
        var schedule = CommitSchedule()
        let wake = schedule.sampleWake(storing: false)
        #expect(wake == .backlog(CommitSchedule.preRollBacklog))
        schedule.took(feedOnSchedule: false)
        let work = schedule.work(at: Self.at(0), storing: false)
        #expect(work == .nothing)
        #expect(schedule.deadline(writerDeadline: nil) == nil)
        #expect(CommitSchedule.pollTimeout(until: nil, now: Self.at(0)) == -1)
    }

    @Test("a stored recording ticks every maxWait while the feed counts on it, and stops when a take finds nothing")
    func ticks() {
        var schedule = CommitSchedule()
        // The take before the recording opened asked for a backlog only: the first tick comes anyway.
        _ = schedule.sampleWake(storing: false)
        schedule.took(feedOnSchedule: false)
        var work = schedule.work(at: Self.at(0), storing: true)
        #expect(work == .dueChunks)
        schedule.scheduleTick(now: Self.at(0), every: Self.tick)
        #expect(schedule.tick == Self.at(500))
        let wake = schedule.sampleWake(storing: true)
        #expect(wake == .onOwnSchedule)
        schedule.took(feedOnSchedule: true)
        work = schedule.work(at: Self.at(200), storing: true)
        #expect(work == .dueChunks)
        schedule.scheduleTick(now: Self.at(200), every: Self.tick)
        #expect(schedule.tick == Self.at(500))
        #expect(schedule.deadline(writerDeadline: Self.at(700)) == Self.at(500))
        #expect(schedule.deadline(writerDeadline: Self.at(300)) == Self.at(300))
        work = schedule.work(at: Self.at(500), storing: true)
        #expect(work == .everything)
        schedule.committedEverything()
        schedule.scheduleTick(now: Self.at(500), every: Self.tick)
        #expect(schedule.tick == Self.at(1000))
        // The next take found no samples: the feed wakes the recorder for the next one, so the ticking ends.
        _ = schedule.sampleWake(storing: true)
        schedule.took(feedOnSchedule: false)
        work = schedule.work(at: Self.at(1000), storing: true)
        #expect(work == .everything)
        schedule.committedEverything()
        schedule.scheduleTick(now: Self.at(1000), every: Self.tick)
        #expect(schedule.tick == nil)
        #expect(schedule.deadline(writerDeadline: nil) == nil)
    }

    @Test("a tick whose commit failed stays due; the recording's end drops it")
    func failedTickStays() {
        var schedule = CommitSchedule()
        schedule.scheduleTick(now: Self.at(0), every: Self.tick)
        var work = schedule.work(at: Self.at(600), storing: true)
        #expect(work == .everything)
        schedule.scheduleTick(now: Self.at(600), every: Self.tick)
        #expect(schedule.tick == Self.at(500))
        work = schedule.work(at: Self.at(700), storing: false)
        #expect(work == .nothing)
        #expect(schedule.tick == nil)
    }

    @Test("a failing store: one trouble, retries backing off from 1 s to 16 s in place of the tick, then recovery")
    func storageRetryBacksOff() {
        var schedule = CommitSchedule()
        let problem = "database or disk is full"
        schedule.scheduleTick(now: Self.at(0), every: Self.tick)
        let trouble = schedule.commitFailed(problem: problem, now: Self.at(0))
        #expect(trouble?.retryAt == Self.at(1000))
        let again = schedule.commitFailed(problem: problem, now: Self.at(100))
        #expect(again == nil)
        #expect(schedule.deadline(writerDeadline: Self.at(200)) == Self.at(1000))
        var work = schedule.work(at: Self.at(600), storing: true)
        #expect(work == .nothing)
        work = schedule.work(at: Self.at(1000), storing: true)
        #expect(work == .retry)
        var now = 1000
        for backoff in [2, 4, 8, 16, 16] {
            let changed = schedule.retryFailed(problem: problem, now: Self.at(now))
            #expect(!changed)
            now += backoff * 1000
            #expect(schedule.deadline(writerDeadline: nil) == Self.at(now))
        }
        let changed = schedule.retryFailed(problem: "disk I/O error", now: Self.at(now))
        #expect(changed)
        schedule.recovered()
        #expect(schedule.trouble == nil)
        #expect(schedule.deadline(writerDeadline: nil) == Self.at(500))
    }

    @Test("poll's timeout rounds up to the next millisecond and waits at most a minute")
    func pollTimeout() {
        #expect(CommitSchedule.pollTimeout(until: Self.start + .microseconds(1_234_500), now: Self.start) == 1235)
        #expect(CommitSchedule.pollTimeout(until: Self.at(-5), now: Self.start) == 0)
        #expect(CommitSchedule.pollTimeout(until: Self.start + .seconds(3600), now: Self.start) == 60_000)
    }
}
