import Glibc
import GripAnalysis
import GripStream
import Testing

@testable import GripDaemon

/// When the consumer wakes a receiving thread: the difference between one wake-up per notification and a few a
/// second on a Pi that streams all day.
@Suite("Hand-off wake-ups")
struct HandOffWakeTests {
    /// Whether the receiver's poll would return now.
    static func woken(_ handOff: HandOff<StreamOutput>) -> Bool {
        var descriptor = pollfd(fd: handOff.wake.readDescriptor, events: Int16(POLLIN), revents: 0)
        return poll(&descriptor, 1, 0) == 1
    }

    /// Offers one notification's worth: a sample, and optionally an event after it.
    static func offer(_ handOff: HandOff<StreamOutput>, micros: Int64, event: Bool = false) {
        var batch = HandOffBatch<StreamOutput>()
        batch.append(.sample(micros: micros, kilograms: 1))
        if event { batch.append(.link(up: true, hostMicros: micros)) }
        #expect(handOff.offer(&batch))
    }

    @Test("by default the first hand-off after a take wakes the receiver, later ones do not until it takes")
    func anyHandOffWakes() throws {
        let handOff = try HandOff<StreamOutput>(purpose: "test")
        Self.offer(handOff, micros: 1)
        #expect(Self.woken(handOff))
        var taken = HandOffBatch<StreamOutput>()
        #expect(!handOff.take(into: &taken))
        #expect(taken.micros == [1])
        #expect(!Self.woken(handOff))
        Self.offer(handOff, micros: 2)
        #expect(Self.woken(handOff))
    }

    @Test("on its own schedule the receiver is not woken for samples, is woken for an event, and a take without samples ends the schedule")
    func ownSchedule() throws {
        let handOff = try HandOff<StreamOutput>(purpose: "test")
        Self.offer(handOff, micros: 1)
        var taken = HandOffBatch<StreamOutput>()
        #expect(handOff.take(into: &taken, next: .onOwnSchedule), "a take with samples keeps the schedule")
        for micros in Int64(2)...50 { Self.offer(handOff, micros: micros) }
        #expect(!Self.woken(handOff), "49 samples woke a receiver that takes them on its schedule")
        Self.offer(handOff, micros: 51, event: true)
        #expect(Self.woken(handOff), "an event waits for no schedule")

        taken.removeAll()
        #expect(handOff.take(into: &taken, next: .onOwnSchedule))
        #expect(taken.micros.count == 50 && taken.events.count == 1)
        taken.removeAll()
        #expect(!handOff.take(into: &taken, next: .onOwnSchedule), "nothing came: the stream stopped")
        Self.offer(handOff, micros: 52)
        #expect(Self.woken(handOff), "after a take without samples the next sample must wake the receiver")
    }

    @Test("with a backlog wake, samples wake the receiver only when that many wait; an event at once")
    func backlog() throws {
        let handOff = try HandOff<StreamOutput>(purpose: "test")
        var taken = HandOffBatch<StreamOutput>()
        handOff.take(into: &taken, next: .backlog(100))
        for micros in Int64(1)...99 { Self.offer(handOff, micros: micros) }
        #expect(!Self.woken(handOff))
        Self.offer(handOff, micros: 100)
        #expect(Self.woken(handOff))
        handOff.take(into: &taken, next: .backlog(100))
        Self.offer(handOff, micros: 101, event: true)
        #expect(Self.woken(handOff))
    }
}
