import NIOCore
import Testing
@testable import GripWeb

/// The shared WATCH's decisions (``EventFanout``) with plain values: the connection, waiters and browsers are names.
@Suite("Event fan-out")
struct EventFanoutTests {
    typealias Fanout = EventFanout<String, String, String>

    static func frame(_ text: String) -> ByteBuffer { ByteBuffer(string: text) }

    static func texts(_ take: Fanout.Take) -> [String]? {
        guard case .frames(let frames) = take else { return nil }
        return frames.map { String(buffer: $0) }
    }

    static func resumed(_ effects: Fanout.Effects) -> [String: String] {
        var resumed: [String: String] = [:]
        for (waiter, delivery) in effects.resume {
            switch delivery {
            case .linked: resumed[waiter] = "linked"
            case .ended: resumed[waiter] = "ended"
            case .frames(let frames): resumed[waiter] = frames.map { String(buffer: $0) }.joined(separator: "|")
            }
        }
        return resumed
    }

    /// A fan-out whose link `connection` is open, with the greeting and WATCH reply received.
    static func open(budget: Int = 4) -> (fanout: Fanout, first: Int) {
        var fanout = Fanout(budget: budget)
        let (first, _) = fanout.join(peer: "browser-1")
        _ = fanout.connected(generation: 0, connection: "daemon-0")
        _ = fanout.receive(frame("VERSION"), retained: true, generation: 0)
        _ = fanout.receive(frame("WATCH"), retained: true, generation: 0)
        return (fanout, first)
    }

    @Test("the first stream opens the link, the next waits for it, and both are told once it is up")
    func oneConnectionForMany() {
        var fanout = Fanout(budget: 4)
        let (first, action) = fanout.join(peer: "browser-1")
        #expect(action == .connect(generation: 0))
        let (second, wait) = fanout.join(peer: "browser-2")
        #expect(wait == .wait)
        #expect(fanout.awaitLink(first, waiter: "w1") == nil)
        #expect(fanout.awaitLink(second, waiter: "w2") == nil)
        let effects = fanout.connected(generation: 0, connection: "daemon-0")
        #expect(Self.resumed(effects) == ["w1": "linked", "w2": "linked"])
        #expect(effects.close == nil)
    }

    @Test("every stream gets every line, and one joining later starts with the greeting and the WATCH reply")
    func identicalLines() {
        let opened = Self.open()
        var fanout = opened.fanout
        let first = opened.first
        _ = fanout.receive(Self.frame("SAMPLES 1"), retained: false, generation: 0)
        let (late, action) = fanout.join(peer: "browser-2")
        #expect(action == .joined)
        _ = fanout.receive(Self.frame("SAMPLES 2"), retained: false, generation: 0)
        #expect(Self.texts(fanout.take(first)) == ["VERSION", "WATCH", "SAMPLES 1", "SAMPLES 2"])
        #expect(Self.texts(fanout.take(late)) == ["VERSION", "WATCH", "SAMPLES 2"])
        // A parked writer is resumed with the next line itself.
        #expect(fanout.park(first, waiter: "w1") == nil)
        let effects = fanout.receive(Self.frame("EFFORT"), retained: false, generation: 0)
        #expect(Self.resumed(effects) == ["w1": "EFFORT"])
        #expect(Self.texts(fanout.take(late)) == ["EFFORT"])
    }

    @Test("a stream over its budget is dropped; the others keep getting lines")
    func slowStreamDropped() {
        let opened = Self.open(budget: 4)
        var fanout = opened.fanout
        let stalled = opened.first
        let (reader, _) = fanout.join(peer: "browser-2")
        // The stalled stream's writer took the greeting and the reply and never comes back: 2 in flight.
        #expect(Self.texts(fanout.take(stalled)) == ["VERSION", "WATCH"])
        #expect(Self.texts(fanout.take(reader)) == ["VERSION", "WATCH"])
        var dropped: [Int: [String]] = [:]
        for index in 1...5 {
            let effects = fanout.receive(Self.frame("SAMPLES \(index)"), retained: false, generation: 0)
            dropped[index] = effects.drop
            #expect(effects.close == nil)
            #expect(Self.texts(fanout.take(reader)) == ["SAMPLES \(index)"])
        }
        // Two in flight plus two queued is the budget: the third line finds it full.
        #expect(dropped == [1: [], 2: [], 3: ["browser-1"], 4: [], 5: []])
        #expect(fanout.subscribers[stalled] == nil)
        guard case .ended = fanout.take(stalled) else { Issue.record("the dropped stream goes on"); return }
        #expect(fanout.live == 1)
    }

    @Test("the last stream leaving closes the link; the next one opens a new one and ignores the old one's lines")
    func lastLeavesCloses() {
        let opened = Self.open()
        var fanout = opened.fanout
        let first = opened.first
        let (second, _) = fanout.join(peer: "browser-2")
        #expect(fanout.leave(first).close == nil)
        #expect(Self.texts(fanout.take(second)) == ["VERSION", "WATCH"])
        #expect(fanout.park(second, waiter: "w2") == nil)
        let effects = fanout.leave(second)
        #expect(effects.close == "daemon-0")
        #expect(Self.resumed(effects) == ["w2": "ended"])
        guard case .closed = fanout.link else { Issue.record("the link stayed open"); return }
        let (third, action) = fanout.join(peer: "browser-3")
        #expect(action == .connect(generation: 1))
        _ = fanout.connected(generation: 1, connection: "daemon-1")
        #expect(fanout.receive(Self.frame("late line of the old link"), retained: false, generation: 0).resume.isEmpty)
        #expect(fanout.linkClosed(generation: 0).resume.isEmpty)
        _ = fanout.receive(Self.frame("VERSION"), retained: true, generation: 1)
        #expect(Self.texts(fanout.take(third)) == ["VERSION"])
    }

    @Test("a link that opens after every waiting stream left is closed at once")
    func nobodyLeftWhileConnecting() {
        var fanout = Fanout(budget: 4)
        let (first, _) = fanout.join(peer: "browser-1")
        #expect(fanout.leave(first).close == nil)
        #expect(fanout.connected(generation: 0, connection: "daemon-0").close == "daemon-0")
        guard case .closed = fanout.link else { Issue.record("the link stayed open"); return }
    }

    @Test("when the daemon closes, each stream gets what is queued for it, then ends; a failed connect ends joiners")
    func daemonCloses() {
        let opened = Self.open()
        var fanout = opened.fanout
        let first = opened.first
        let (second, _) = fanout.join(peer: "browser-2")
        #expect(Self.texts(fanout.take(second)) == ["VERSION", "WATCH"])
        #expect(fanout.park(second, waiter: "w2") == nil)
        let effects = fanout.linkClosed(generation: 0)
        #expect(Self.resumed(effects) == ["w2": "ended"])
        #expect(Self.texts(fanout.take(first)) == ["VERSION", "WATCH"])
        guard case .ended = fanout.take(first) else { Issue.record("the stream outlived its link"); return }

        let (third, action) = fanout.join(peer: "browser-3")
        #expect(action == .connect(generation: 1))
        #expect(fanout.awaitLink(third, waiter: "w3") == nil)
        #expect(Self.resumed(fanout.connectFailed(generation: 1)) == ["w3": "ended"])
        #expect(fanout.subscribers.isEmpty)
    }
}
