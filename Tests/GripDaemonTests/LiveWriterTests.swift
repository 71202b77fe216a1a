import Foundation
import Glibc
import GripAnalysis
import GripProtocol
import GripStream
import GripSystem
import Testing

@testable import GripDaemon

/// The consumer's writes to watchers (LiveWriter over ClientOutput) on real socket pairs: what a watcher receives,
/// in which order, and when the socket thread is woken.
@Suite("Live writer")
struct LiveWriterTests {
    /// A connected pair: `output` writes to the daemon's end, the test reads the client's end.
    final class Peer {
        let output: ClientOutput
        let clientEnd: Int32

        init(sendBufferBytes: Int32? = nil) throws {
            var ends: [Int32] = [-1, -1]
            guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &ends) == 0 else {
                throw POSIXError(.init(rawValue: errno) ?? .EIO)
            }
            if var size = sendBufferBytes {
                _ = setsockopt(ends[0], SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
            }
            output = ClientOutput(descriptor: ends[0])
            clientEnd = ends[1]
        }

        deinit {
            output.close()
            close(clientEnd)
        }

        /// The lines that arrived so far, without waiting.
        func lines() -> [String] {
            var text = ""
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = recv(clientEnd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
                guard count > 0 else { break }
                text += String(decoding: buffer[0..<count], as: UTF8.self)
            }
            return text.split(separator: "\n").map(String.init)
        }

        /// Each line's class and, for SAMPLES, its times.
        func messages() throws -> [(class: String, times: [Double])] {
            try lines().map { line in
                let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                return (object["class"] as? String ?? "?", object["t"] as? [Double] ?? [])
            }
        }
    }

    static func readable(_ pipe: WakePipe) -> Bool {
        var descriptor = pollfd(fd: pipe.readDescriptor, events: Int16(POLLIN), revents: 0)
        return poll(&descriptor, 1, 0) == 1
    }

    static func watching(_ peer: Peer, _ pace: WatchPace) -> Peer {
        peer.output.setLivePace(pace)
        return peer
    }

    @Test("an immediate watcher gets each batch at its end; a batched one every 40 ms, and before every event")
    func pacesAndOrder() throws {
        let live = try LiveWatchers(backlogLimit: 1 << 20)
        let batched = Self.watching(try Peer(), .batched)
        let immediate = Self.watching(try Peer(), .immediate)
        live.publish(batched: [batched.output], immediate: [immediate.output], slow: [])
        var writer = LiveWriter(watchers: live)
        let watched = writer.refresh()
        #expect(watched)

        writer.add(.sample(micros: 1_000_000, kilograms: 1))
        writer.endBatch(perBurst: false)  // the first batched line is due at once
        writer.add(.sample(micros: 1_012_500, kilograms: 2))
        writer.endBatch(perBurst: false)  // not due for 40 ms: batched waits
        #expect(try immediate.messages().map(\.times) == [[1.0], [1.0125]])
        #expect(try batched.messages().map(\.times) == [[1.0]])
        #expect(writer.microsUntilFlush().map { $0 > 0 && $0 <= WatchPace.batched.samplesIntervalMicros! } == true)

        writer.add(.sample(micros: 1_025_000, kilograms: 3))
        writer.add(.segment(.effortStarted(startMicros: 1_025_000)))
        writer.endBatch(perBurst: false)
        // Every sample before the event arrives before it, at either pace.
        #expect(try batched.messages().map(\.class) == ["SAMPLES", "EFFORT"])
        let immediateAfter = try immediate.messages()
        #expect(immediateAfter.map(\.class) == ["SAMPLES", "EFFORT"])
        #expect(immediateAfter.first?.times == [1.025])
    }

    @Test("a slow watcher gets every sample, at most every 500 ms and before every event, beside faster paces")
    func slowPace() throws {
        let live = try LiveWatchers(backlogLimit: 1 << 20)
        let batched = Self.watching(try Peer(), .batched)
        let slow = Self.watching(try Peer(), .slow)
        live.publish(batched: [batched.output], immediate: [], slow: [slow.output])
        var writer = LiveWriter(watchers: live)
        _ = writer.refresh()
        writer.add(.sample(micros: 0, kilograms: 1))
        writer.endBatch(perBurst: true)  // the first line of each pace is due at once
        #expect(try slow.messages().map(\.times) == [[0]])
        for index in 1...3 {
            writer.add(.sample(micros: Int64(index) * 12_500, kilograms: 1))
            writer.endBatch(perBurst: true)
        }
        // Batched watchers had each burst; the slow one waits for its 500 ms, with the samples kept for it.
        #expect(try batched.messages().count == 4)
        #expect(try slow.messages().isEmpty)
        let wait = try #require(writer.microsUntilFlush())
        #expect(wait > WatchPace.batched.samplesIntervalMicros! && wait <= WatchPace.slow.samplesIntervalMicros!)
        writer.add(.segment(.effortStarted(startMicros: 37_500)))
        let beforeEffort = try slow.messages()
        #expect(beforeEffort.map(\.class) == ["SAMPLES", "EFFORT"])
        #expect(beforeEffort.first?.times == [0.0125, 0.025, 0.0375])
        writer.add(.sample(micros: 50_000, kilograms: 1))
        writer.finish()
        let all = try slow.messages()
        #expect(all.map(\.times) == [[0.05]])
        #expect(writer.microsUntilFlush() == nil, "nothing is pending after the end")
    }

    @Test("a paced burst is one batched line as it arrives; nothing is written to a watcher that stopped")
    func burstsAndStoppedWatchers() throws {
        let live = try LiveWatchers(backlogLimit: 1 << 20)
        let first = Self.watching(try Peer(), .batched)
        let second = Self.watching(try Peer(), .batched)
        live.publish(batched: [first.output, second.output], immediate: [], slow: [])
        var writer = LiveWriter(watchers: live)
        _ = writer.refresh()
        writer.add(.sample(micros: 0, kilograms: 1))
        writer.endBatch(perBurst: true)
        writer.add(.sample(micros: 12_500, kilograms: 1))
        writer.endBatch(perBurst: true)  // within 40 ms of the last line, but a burst: sent at once
        #expect(try first.messages().map(\.times) == [[0], [0.0125]])
        // The socket thread takes `second` off its own pace before publishing: the writer's older list is harmless.
        second.output.setLivePace(nil)
        _ = second.lines()
        writer.add(.sample(micros: 25_000, kilograms: 1))
        writer.endBatch(perBurst: true)
        #expect(try first.messages().map(\.times) == [[0.025]])
        #expect(second.lines().isEmpty)
        #expect(!Self.readable(live.trouble), "a watcher that stopped is no trouble")
    }

    @Test("a watcher that stops reading wakes the socket thread once, until it clears, and fails at the limit")
    func troubleAndBacklog() throws {
        let live = try LiveWatchers(backlogLimit: 32_768)
        let silent = Self.watching(try Peer(sendBufferBytes: 4096), .immediate)
        live.publish(batched: [], immediate: [silent.output], slow: [])
        var writer = LiveWriter(watchers: live)
        _ = writer.refresh()
        var micros: Int64 = 0
        while silent.output.pendingBytes == 0 && micros < 100_000_000 {
            writer.add(.sample(micros: micros, kilograms: 1))
            writer.endBatch(perBurst: false)
            micros += 12_500
        }
        #expect(silent.output.pendingBytes > 0)
        #expect(silent.output.behindSince != nil)
        #expect(Self.readable(live.trouble))
        live.clearTrouble()
        #expect(!Self.readable(live.trouble))
        // Still behind: the next line signals again (the socket thread checks the budget each time).
        writer.add(.sample(micros: micros, kilograms: 1))
        writer.endBatch(perBurst: false)
        #expect(Self.readable(live.trouble))
        while silent.output.failure == nil && micros < 100_000_000 {
            micros += 12_500
            writer.add(.sample(micros: micros, kilograms: 1))
            writer.endBatch(perBurst: false)
        }
        guard case .tooSlow(let held)? = silent.output.failure else {
            Issue.record("no failure: \(String(describing: silent.output.failure))")
            return
        }
        #expect(held <= 32_768)
        #expect(silent.output.send("{}\n", backlogLimit: 32_768) == .failed)
    }

    @Test("closing under the lock: later writes from either thread do nothing")
    func closedOutput() throws {
        let peer = try Peer()
        peer.output.setLivePace(.batched)
        #expect(peer.output.send("{\"class\":\"VERSION\"}\n", backlogLimit: 1024) == .caughtUp)
        peer.output.close()
        #expect(peer.output.send("{}\n", backlogLimit: 1024, ifWatching: .batched) == .notWatching)
        #expect(peer.output.send("{}\n", backlogLimit: 1024) == .failed)
        #expect(peer.lines() == ["{\"class\":\"VERSION\"}"])
    }
}
