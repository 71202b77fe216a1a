import Glibc
import Synchronization
import Testing
@testable import GripStream
import RingStress

/// An entry as the tests push and expect it, with the value copied out of the ring.
struct Entry: Equatable, CustomStringConvertible {
    var kind: RingEntryKind
    var handle: UInt16
    var hostMicros: Int64
    var value: [UInt8]

    var description: String { "\(kind) h=\(handle) t=\(hostMicros) len=\(value.count)" }

    /// A deterministic entry for sequence number `sequence`: the value bytes, length, handle, time and kind all
    /// derive from it, so a lost, reordered or torn entry shows up as a mismatch.
    static func derived(from sequence: Int, lengths: [Int] = [0, 1, 2, 10, 20, 162, 511, 512]) -> Entry {
        let length = lengths[sequence % lengths.count]
        return Entry(
            kind: sequence % 3 == 0 ? .write : .notification,
            handle: UInt16(truncatingIfNeeded: sequence &* 7),
            hostMicros: Int64(sequence) * 1_000 + 17,
            value: (0..<length).map { UInt8(truncatingIfNeeded: sequence &* 31 &+ $0 &* 13 &+ (sequence >> 8)) }
        )
    }
}

extension NotificationRing {
    func tryPush(_ entry: Entry) -> Bool {
        entry.value.withUnsafeBytes {
            tryPush(kind: entry.kind, handle: entry.handle, hostMicros: entry.hostMicros, value: $0)
        }
    }

    func pushWaiting(_ entry: Entry) -> Bool {
        entry.value.withUnsafeBytes {
            pushWaiting(kind: entry.kind, handle: entry.handle, hostMicros: entry.hostMicros, value: $0)
        }
    }

    func pushIfRoom(_ entry: Entry) -> PushOutcome {
        entry.value.withUnsafeBytes {
            pushIfRoom(kind: entry.kind, handle: entry.handle, hostMicros: entry.hostMicros, value: $0)
        }
    }

    func pop(max: Int = .max) -> [Entry] {
        var entries: [Entry] = []
        _ = popBatch(max: max) {
            entries.append(Entry(kind: $0.kind, handle: $0.handle, hostMicros: $0.hostMicros, value: Array($0.value)))
        }
        return entries
    }
}

@Suite("NotificationRing")
struct NotificationRingTests {
    @Test("entries come out in push order with byte-exact values across many wraparounds")
    func fifoAcrossWraparound() {
        let ring = NotificationRing(capacityPowerOfTwo: 8)
        var pushed: [Entry] = []
        var popped: [Entry] = []
        var sequence = 0
        var round = 0
        while sequence < 1_000 {
            // Uneven bursts and batch sizes so the indices wrap at every slot position.
            let burst = 1 + round % 8
            for _ in 0..<burst {
                let entry = Entry.derived(from: sequence)
                if ring.tryPush(entry) {
                    pushed.append(entry)
                    sequence += 1
                }
            }
            popped += ring.pop(max: 1 + round % 5)
            round += 1
        }
        popped += ring.pop()
        #expect(ring.pop().isEmpty)
        #expect(popped.count == pushed.count)
        #expect(popped == pushed)
        #expect(ring.oversized == 0)
    }

    @Test("popBatch pops at most max entries and 0 from an empty ring")
    func popBatchHonoursMax() {
        let ring = NotificationRing(capacityPowerOfTwo: 16)
        #expect(ring.pop().isEmpty)
        let entries = (0..<10).map { Entry.derived(from: $0) }
        for entry in entries { #expect(ring.tryPush(entry)) }
        #expect(ring.pop(max: 3) == Array(entries[0..<3]))
        #expect(ring.pop(max: 0).isEmpty)
        #expect(ring.pop(max: 100) == Array(entries[3...]))
        #expect(ring.pop().isEmpty)
    }

    @Test("link events and end of stream carry their kind and an empty value")
    func linkEvents() {
        let ring = NotificationRing(capacityPowerOfTwo: 8)
        let events = [RingEntryKind.connected, .disconnected, .endOfStream].enumerated().map {
            Entry(kind: $0.element, handle: 0, hostMicros: Int64($0.offset), value: [])
        }
        for event in events { #expect(ring.tryPush(event)) }
        #expect(ring.pop() == events)
    }

    @Test("full ring rejects the push, counts the drop and keeps the queued entries intact")
    func fullRingDropsAndCounts() {
        let ring = NotificationRing(capacityPowerOfTwo: 4)
        let queued = (0..<4).map { Entry.derived(from: $0) }
        for entry in queued { #expect(ring.tryPush(entry)) }
        #expect(!ring.tryPush(Entry.derived(from: 100)))
        #expect(ring.dropped == 1)
        #expect(!ring.tryPush(Entry.derived(from: 101)))
        #expect(ring.dropped == 2)

        #expect(ring.pop(max: 1) == [queued[0]])
        let late = Entry.derived(from: 102)
        #expect(ring.tryPush(late))
        #expect(ring.dropped == 2)
        #expect(ring.pop() == Array(queued[1...]) + [late])
    }

    @Test("pushIfRoom tells a full ring (worth a retry, not a drop) from a value too long for any slot")
    func pushIfRoomOutcomes() {
        let ring = NotificationRing(capacityPowerOfTwo: 2)
        let link = Entry(kind: .disconnected, handle: 0, hostMicros: 1, value: [])
        #expect(ring.pushIfRoom(link) == .pushed)
        #expect(ring.pushIfRoom(link) == .pushed)
        #expect(ring.pushIfRoom(link) == .full)
        #expect(ring.dropped == 0)
        let tooLong = Entry(kind: .notification, handle: 0x0E, hostMicros: 2, value: Array(repeating: 0xAB, count: 513))
        _ = ring.pop()
        // With room to spare the answer is still no: a caller retrying on anything but `.full` would spin forever.
        #expect(ring.pushIfRoom(tooLong) == .oversized)
        #expect(ring.oversized == 1)
        #expect(ring.pushIfRoom(link) == .pushed)
        #expect(ring.pop() == [link])
    }

    @Test("a value over 512 bytes is rejected and counted as oversized, not truncated")
    func oversizedValueIsRejected() {
        let ring = NotificationRing(capacityPowerOfTwo: 4)
        let tooLong = Entry(kind: .notification, handle: 0x0E, hostMicros: 1, value: Array(repeating: 0xAB, count: 513))
        #expect(!ring.tryPush(tooLong))
        #expect(!ring.pushWaiting(tooLong))
        #expect(ring.oversized == 2)
        #expect(ring.dropped == 0)
        #expect(ring.pop().isEmpty)

        let longest = Entry(kind: .notification, handle: 0x0E, hostMicros: 2, value: Array(repeating: 0xCD, count: 512))
        #expect(ring.tryPush(longest))
        #expect(ring.pop() == [longest])
    }

    @Test("a capacity that is not a power of two traps")
    func capacityMustBePowerOfTwo() async {
        await #expect(processExitsWith: .failure) {
            _ = NotificationRing(capacityPowerOfTwo: 12)
        }
    }

    @Test("using the ring after close traps instead of touching freed memory")
    func useAfterCloseTraps() async {
        await #expect(processExitsWith: .failure) {
            let ring = NotificationRing(capacityPowerOfTwo: 2)
            ring.close()
            _ = ring.popBatch(max: 1) { _ in }
        }
    }

    @Test("pushWaiting sleeps while the ring is full and completes once the consumer has drained half of it")
    func pushWaitingSleepsUntilHalfDrained() {
        let ring = NotificationRing(capacityPowerOfTwo: 8)
        let first = (0..<8).map { Entry.derived(from: $0) }
        for entry in first { #expect(ring.tryPush(entry)) }
        let waiting = Entry.derived(from: 8)
        let returned = Flag()
        let producer = TestThread {
            #expect(ring.pushWaiting(waiting))
            returned.set()
        }
        #expect(Flag.poll(upTo: 30) { ring.producerIsSleeping }, "pushWaiting never went to sleep on a full ring")
        pause(milliseconds: 100)
        #expect(!returned.isSet, "pushWaiting returned while the ring was full")

        // 7 of 8 still queued: above the low-water mark, so the producer keeps sleeping (one wakeup per half ring).
        #expect(ring.pop(max: 1) == [first[0]])
        pause(milliseconds: 100)
        #expect(!returned.isSet, "pushWaiting was woken before the ring drained to half")

        #expect(ring.pop(max: 3) == Array(first[1..<4]))
        #expect(returned.wait(upTo: 30), "pushWaiting did not return after the ring drained to half")
        producer.join()
        #expect(ring.pop() == Array(first[4...]) + [waiting])
        #expect(ring.dropped == 0)
    }

    @Test("waitForData sleeps while the ring is empty and the first entry wakes it")
    func waitForDataWakesOnFirstEntry() {
        let ring = NotificationRing(capacityPowerOfTwo: 8)
        let returned = Flag()
        let entry = Entry.derived(from: 5)
        let consumer = TestThread {
            ring.waitForData()
            returned.set()
            #expect(ring.pop() == [entry])
        }
        #expect(Flag.poll(upTo: 30) { ring.consumerIsSleeping }, "waitForData never went to sleep on an empty ring")
        pause(milliseconds: 100)
        #expect(!returned.isSet, "waitForData returned while the ring was empty")

        #expect(ring.tryPush(entry))
        #expect(returned.wait(upTo: 30), "waitForData did not return after an entry arrived")
        #expect(!ring.consumerIsSleeping)
        consumer.join()
    }

    @Test("a burst pushed without waking wakes a sleeping consumer once, at its end, with every entry in it")
    func burstWakesOnceAtItsEnd() {
        let ring = NotificationRing(capacityPowerOfTwo: 8)
        let returned = Flag()
        let burst = (10..<13).map { Entry.derived(from: $0) }
        let consumer = TestThread {
            ring.waitForData()
            returned.set()
            #expect(ring.pop() == burst, "the consumer woke before the whole burst was in the ring")
        }
        #expect(Flag.poll(upTo: 30) { ring.consumerIsSleeping }, "waitForData never went to sleep on an empty ring")
        for entry in burst {
            let pushed = entry.value.withUnsafeBytes {
                ring.tryPush(
                    kind: entry.kind, handle: entry.handle, hostMicros: entry.hostMicros, value: $0, wakesConsumer: false)
            }
            #expect(pushed)
        }
        pause(milliseconds: 100)
        #expect(!returned.isSet, "an entry pushed without waking woke the consumer")
        #expect(ring.consumerIsSleeping)

        ring.wakeSleepingConsumerAfterBurst()
        #expect(returned.wait(upTo: 30), "the end of the burst did not wake the consumer")
        consumer.join()
    }

    @Test("a timed wait on an empty ring returns false once its time is up; a push during it ends it at once")
    func timedWaitForData() {
        let ring = NotificationRing(capacityPowerOfTwo: 8)
        let start = ContinuousClock.now
        #expect(!ring.waitForData(timeoutMicros: 50_000))
        #expect(ContinuousClock.now - start >= .milliseconds(50), "returned before its time was up")

        let entry = Entry.derived(from: 4)
        let returned = Flag()
        let consumer = TestThread {
            #expect(ring.waitForData(timeoutMicros: 30_000_000))
            returned.set()
            #expect(ring.pop() == [entry])
        }
        #expect(Flag.poll(upTo: 30) { ring.consumerIsSleeping }, "the timed wait never went to sleep on an empty ring")
        #expect(ring.tryPush(entry))
        #expect(returned.wait(upTo: 5), "the push did not end the timed wait")
        consumer.join()
    }

    @Test("waitForData returns at once when the ring already holds an entry")
    func waitForDataWithDataPresent() {
        let ring = NotificationRing(capacityPowerOfTwo: 8)
        let entry = Entry.derived(from: 9)
        #expect(ring.tryPush(entry))
        ring.waitForData()
        #expect(ring.pop() == [entry])
    }

    @Test("a stale eventfd wakeup does not make waitForData return while the ring is empty")
    func staleWakeupIsAbsorbed() {
        let ring = NotificationRing(capacityPowerOfTwo: 8)
        // The count a producer can leave behind when the consumer found data on its re-check.
        #expect(throws: Never.self) { try ring.dataReady.signal() }
        let returned = Flag()
        let consumer = TestThread {
            ring.waitForData()
            returned.set()
        }
        // It reads the stale count, finds the ring empty and must go back to sleep.
        pause(milliseconds: 100)
        #expect(Flag.poll(upTo: 30) { ring.consumerIsSleeping })
        #expect(!returned.isSet, "waitForData returned on a stale wakeup with an empty ring")

        #expect(ring.tryPush(Entry.derived(from: 1)))
        #expect(returned.wait(upTo: 30))
        consumer.join()
    }

    @Test("wakeConsumer makes a sleeping waitForData return once, without an entry")
    func wakeConsumerReturnsWithoutEntry() {
        let ring = NotificationRing(capacityPowerOfTwo: 8)
        let returned = Flag()
        let consumer = TestThread {
            ring.waitForData()
            returned.set()
        }
        #expect(Flag.poll(upTo: 30) { ring.consumerIsSleeping }, "waitForData never went to sleep on an empty ring")
        ring.wakeConsumer()
        #expect(returned.wait(upTo: 30), "waitForData did not return after wakeConsumer")
        consumer.join()
        #expect(ring.pop().isEmpty)

        // The request was consumed: the next wait sleeps until an entry arrives.
        let again = Flag()
        let second = TestThread {
            ring.waitForData()
            again.set()
        }
        pause(milliseconds: 100)
        #expect(Flag.poll(upTo: 30) { ring.consumerIsSleeping })
        #expect(!again.isSet, "a consumed wake request made waitForData return again")
        #expect(ring.tryPush(Entry.derived(from: 3)))
        #expect(again.wait(upTo: 30))
        second.join()
    }

    @Test("a wake request made while the consumer is busy makes its next waitForData return at once")
    func wakeRequestIsKeptUntilTheNextWait() {
        let ring = NotificationRing(capacityPowerOfTwo: 8)
        ring.wakeConsumer()
        ring.waitForData()  // would block forever if the request were lost
        #expect(ring.pop().isEmpty)
    }

    @Test("close frees the ring once, and the counters stay readable after it")
    func closeIsIdempotent() {
        let ring = NotificationRing(capacityPowerOfTwo: 2)
        for sequence in 0..<3 { _ = ring.tryPush(Entry.derived(from: sequence)) }
        ring.close()
        ring.close()
        #expect(ring.dropped == 1)
    }
}

/// The two-thread stress scenarios (Tests/RingStress), here in the debug build; `scripts/test` runs them again under
/// ThreadSanitizer in release through `ring-stress`.
@Suite("RingStress: one producer thread, one consumer thread")
struct RingStressTests {
    @Test("2 million entries arrive in order with intact values when the producer waits for space")
    func losslessWithPushWaiting() {
        #expect(RingStress.losslessWithPushWaiting() == [])
    }

    @Test("with a dropping producer every entry either arrives intact and in order or is counted as dropped")
    func droppingProducerLosesNothingUncounted() {
        #expect(RingStress.droppingProducerLosesNothingUncounted() == [])
    }

    @Test("every wake request from a third thread is seen, with the work it published, while a producer pushes")
    func wakeRequestsAreNeverLost() {
        #expect(RingStress.wakeRequestsAreNeverLost() == [])
    }
}
