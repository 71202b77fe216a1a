import Foundation
import GripProtocol
import NIOCore

/// The web layer's one long-lived connection for RECORD, STOP and TARE.
///
/// An explicit recording lasts as long as the connection that sent RECORD (docs/protocol.md, RECORD): a connection
/// per HTTP request would stop every recording as soon as its POST was answered. So the web app keeps one
/// connection for them, sends one request at a time and waits for its reply; a lost connection is made again for
/// the next request (a recording it had started has then ended, as for any client that goes away).
final class ControlLink: Sendable {
    private struct Job: Sendable {
        var request: DaemonRequest
        var reply: CheckedContinuation<ByteBuffer, any Error>
    }

    private let socketPath: String
    private let jobs: AsyncStream<Job>
    private let submit: AsyncStream<Job>.Continuation

    init(socketPath: String) {
        self.socketPath = socketPath
        (jobs, submit) = AsyncStream<Job>.makeStream()
    }

    /// Sends `request` and returns its reply line (of class `replyClass`, or ERROR).
    /// - Throws: `WebError.daemonUnavailable` or `.daemonClosed`.
    func ask(_ request: DaemonRequest) async throws -> ByteBuffer {
        try await withCheckedThrowingContinuation { continuation in
            if case .terminated = submit.yield(Job(request: request, reply: continuation)) {
                continuation.resume(throwing: WebError.daemonClosed)
            }
        }
    }

    /// Serves requests until cancelled: runs for as long as the web server does.
    func run() async {
        var queue = jobs.makeAsyncIterator()
        var waiting: Job? = nil
        while true {
            var next = waiting
            waiting = nil
            if next == nil { next = await queue.next() }
            guard let first = next else { return }
            let channel: DaemonLink.Channel
            do {
                channel = try await DaemonLink.connect(path: socketPath)
            } catch {
                first.reply.resume(throwing: error)
                continue
            }
            var current: Job? = first
            do {
                try await channel.executeThenClose { inbound, outbound in
                    var lines = inbound.makeAsyncIterator()
                    while let job = current {
                        try await outbound.write(ByteBuffer(string: job.request.line))
                        var answer: ByteBuffer?
                        while answer == nil, let line = try await lines.next() {
                            let lineClass = DaemonLink.lineClass(line)
                            if lineClass == job.request.className || lineClass == "ERROR" { answer = line }
                        }
                        guard let answer else { throw WebError.daemonClosed }
                        job.reply.resume(returning: answer)
                        current = nil
                        current = await queue.next()
                        if current == nil { return }
                    }
                }
            } catch {
                current?.reply.resume(throwing: WebError.daemonClosed)
            }
            if Task.isCancelled { return }
        }
    }

    /// Ends the queue (the server stops).
    func finish() { submit.finish() }
}
