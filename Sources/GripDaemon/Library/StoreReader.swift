import Foundation
import Glibc
import GripEntitlements
import GripStore
import GripSystem
import Logging
import ServiceLifecycle

/// Answers the store queries of protocol 1.2 (LIST, SHOW, READ, STATS, HISTORY, PLAN) on its own thread, so a big
/// query never blocks the socket thread's poll loop (the live stream) nor the recorder's chunk commits.
///
/// The socket thread posts `StoreJob`s to `jobs`; each answer is one line, posted to the reply mailbox addressed
/// to the asking client. Reads go straight to the store: it is a WAL `DatabasePool`, so a read sees the last
/// commit and never waits for the recorder (the only writer). A long recording's samples come a page of chunks at
/// a time (READ), each page asked for by the client, so neither side ever holds a whole recording.
final class StoreReader: Service, CustomStringConvertible {
    /// Socket thread → reader.
    let jobs: Mailbox<StoreJob>
    private let replies: Mailbox<DaemonReply>
    private let answers: StoreAnswers
    private let logger: Logger
    private let liveness: ThreadLiveness?
    private let stop: WakePipe

    var description: String { "StoreReader" }

    /// - Throws: `DaemonError.socket` when a wake pipe cannot be created.
    init(
        store: RecordingStore, access: AccessContext, replies: Mailbox<DaemonReply>, liveness: ThreadLiveness? = nil,
        logger: Logger
    ) throws(DaemonError) {
        jobs = try Mailbox(purpose: "store queries")
        self.replies = replies
        answers = StoreAnswers(store: store, access: access)
        self.logger = logger
        self.liveness = liveness
        stop = try WakePipe(daemonPurpose: "store reader stop")
    }

    deinit { stop.close() }

    func run() async throws {
        async let served: Void = NamedThread.run(name: "gt-reader") { [self] in loop() }
        try? await gracefulShutdown()
        stop.signal()
        await served
    }

    private func loop() {
        while true {
            var descriptors = [
                pollfd(fd: jobs.wake.readDescriptor, events: Int16(POLLIN), revents: 0),
                pollfd(fd: stop.readDescriptor, events: Int16(POLLIN), revents: 0),
            ]
            liveness?.idle(.reader)
            let ready = SystemCall.poll(&descriptors, timeoutMilliseconds: -1)
            liveness?.busy(.reader)
            if ready < 0 {
                logger.error("poll failed", metadata: ["error.errno": "\(errno)"])
                return
            }
            if descriptors[0].revents != 0 { answerWaiting() }
            if descriptors[1].revents != 0 {
                answerWaiting()
                return
            }
        }
    }

    private func answerWaiting() {
        for job in jobs.take() {
            let line = answers.answer(job.query, now: Date())
            replies.post(DaemonReply(target: .client(job.client.id), line: line, completesQuery: true))
        }
    }
}
