import NIOCore
import NIOHTTPTypes
import Synchronization

/// Writes one event stream's frames (``SharedWatch``) on its browser's connection, from that connection's event
/// loop: each frame goes straight into the channel as a body part of the response Hummingbird started, and the next
/// frames are taken once the kernel has accepted the last ones.
///
/// Hummingbird's response body writer is bypassed here because profiling showed its cost (Benchmarks/README.md, "The
/// web app and MQTT"): each of its writes resumed the stream's task on the concurrency pool, then hopped to the event
/// loop through the channel's async writer, two thread wake-ups per line and browser.
/// The writes take the same path through the channel's pipeline (HTTP/1 codec, chunked encoding) as its writes do,
/// so the response is framed the same; Hummingbird's writer writes nothing between the stream's first line and its
/// end, which it writes once ``SharedWatch/deliver(_:to:)`` returns, after the last frame was written here.
///
/// A write counts against the stream's budget until it completes, so a browser that stops reading is dropped by
/// ``EventFanout`` however much the channel would buffer.
final class EventStreamWriter: Sendable {
    let id: Int
    private let channel: any Channel
    private let watch: SharedWatch
    /// The response body waiting for the stream's end; nil once resumed.
    private let done: Mutex<CheckedContinuation<Void, Never>?>

    init(id: Int, channel: any Channel, watch: SharedWatch, done: CheckedContinuation<Void, Never>) {
        self.id = id
        self.channel = channel
        self.watch = watch
        self.done = Mutex(done)
    }

    /// Writes what is pending, or parks until ``resume(with:)`` brings more. On the channel's event loop.
    func start() {
        channel.eventLoop.assertInEventLoop()
        switch watch.park(self) {
        case nil: break  // parked
        case .frames(let frames)?: write(frames)
        case .ended?, .linked?: finish()
        }
    }

    /// The parked writer's next delivery, from any thread (the shared connection's event loop, or a stream leaving).
    func resume(with delivery: EventDelivery) {
        if channel.eventLoop.inEventLoop {
            handle(delivery)
        } else {
            channel.eventLoop.execute { self.handle(delivery) }
        }
    }

    private func handle(_ delivery: EventDelivery) {
        switch delivery {
        case .frames(let frames): write(frames)
        case .ended, .linked: finish()
        }
    }

    /// Writes `frames` in one flush; once they are written, takes what came meanwhile.
    private func write(_ frames: [ByteBuffer]) {
        guard let last = frames.last else { return start() }
        for frame in frames.dropLast() {
            channel.write(HTTPResponsePart.body(frame), promise: nil)
        }
        channel.writeAndFlush(HTTPResponsePart.body(last)).whenComplete { result in
            switch result {
            case .success: self.start()
            case .failure:
                // The browser's connection is gone (its close, noticed by SharedWatch, ends the stream too).
                self.watch.leave(self.id)
                self.finish()
            }
        }
    }

    /// The stream is over: the response body goes on to write the response's end.
    private func finish() {
        done.withLock { $0.take() }?.resume()
    }
}
