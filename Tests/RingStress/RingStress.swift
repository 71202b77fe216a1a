import Glibc
import GripStream
import Synchronization

/// Two-thread stress scenarios for the notification ring: GripStreamTests runs them in the debug build, and
/// `scripts/test` under ThreadSanitizer in release through the `ring-stress` executable, which builds only GripStream
/// and what it imports. Producer and consumer derive every field from the sequence number without allocating, so
/// the threads spend their time in the ring. Each scenario returns what went wrong, empty when nothing did.
public enum RingStress {
    /// Mostly short values (like real notifications) with a full 512-byte value now and then.
    private static let lengths = [0, 10, 18, 1, 162, 20, 2, 512, 10, 10, 162, 3]

    private static func byte(_ sequence: Int, _ index: Int) -> UInt8 {
        UInt8(truncatingIfNeeded: sequence &* 31 &+ index &* 13 &+ (sequence >> 8))
    }

    /// Pushes entry `sequence`, built in `buffer`, with `push`; returns what `push` returned.
    private static func push(
        _ sequence: Int,
        in buffer: UnsafeMutableRawBufferPointer,
        with push: (RingEntryKind, UInt16, Int64, UnsafeRawBufferPointer) -> Bool
    ) -> Bool {
        let length = lengths[sequence % lengths.count]
        for index in 0..<length { buffer[index] = byte(sequence, index) }
        return push(
            sequence % 3 == 0 ? .write : .notification,
            UInt16(truncatingIfNeeded: sequence &* 7),
            Int64(sequence) * 1_000 + 17,
            UnsafeRawBufferPointer(rebasing: buffer[0..<length])
        )
    }

    /// Whether `entry` is exactly entry `sequence`.
    private static func matches(_ entry: RingEntry, _ sequence: Int) -> Bool {
        let length = lengths[sequence % lengths.count]
        guard entry.kind == (sequence % 3 == 0 ? .write : .notification),
            entry.handle == UInt16(truncatingIfNeeded: sequence &* 7),
            entry.hostMicros == Int64(sequence) * 1_000 + 17,
            entry.value.count == length
        else { return false }
        for index in 0..<length where entry.value[index] != byte(sequence, index) { return false }
        return true
    }

    /// A producer thread that pushes entries 0..<total, waiting for space, then the end of the stream.
    private static func waitingProducer(total: Int, ring: NotificationRing) -> TestThread {
        TestThread {
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 512, alignment: 8)
            defer { buffer.deallocate() }
            for sequence in 0..<total {
                let pushed = Self.push(sequence, in: buffer) {
                    ring.pushWaiting(kind: $0, handle: $1, hostMicros: $2, value: $3)
                }
                precondition(pushed)
            }
            precondition(ring.pushWaiting(
                kind: .endOfStream, handle: 0, hostMicros: -1, value: UnsafeRawBufferPointer(start: nil, count: 0)))
        }
    }

    /// 2 million entries arrive in order with intact values when the producer waits for space.
    public static func losslessWithPushWaiting() -> [String] {
        var failures: [String] = []
        let total = 2_000_000
        let ring = NotificationRing(capacityPowerOfTwo: 64)
        let producer = waitingProducer(total: total, ring: ring)

        var next = 0
        var mismatches: [String] = []
        var ended = false
        var batch = 0
        var emptyWakeups = 0
        while !ended {
            ring.waitForData()
            batch += 1
            let popped = ring.popBatch(max: 1 + batch % 97) { entry in
                if entry.kind == .endOfStream {
                    ended = true
                    return
                }
                if !Self.matches(entry, next), mismatches.count < 5 {
                    mismatches.append("entry \(next): got \(entry.kind) h=\(entry.handle) t=\(entry.hostMicros)")
                }
                next += 1
            }
            if popped == 0 { emptyWakeups += 1 }
        }
        producer.join()

        check(mismatches.isEmpty, "entries intact and in order, got \(mismatches)", &failures)
        check(next == total, "\(total) entries, got \(next)", &failures)
        check(emptyWakeups == 0, "waitForData returned \(emptyWakeups) times while the ring was empty", &failures)
        check(ring.dropped == 0, "nothing dropped, got \(ring.dropped)", &failures)
        check(ring.popBatch(max: .max) { _ in } == 0, "the ring empty at the end", &failures)
        return failures
    }

    /// With a dropping producer every entry either arrives intact and in order or is counted as dropped.
    public static func droppingProducerLosesNothingUncounted() -> [String] {
        var failures: [String] = []
        let total = 1_000_000
        let ring = NotificationRing(capacityPowerOfTwo: 32)
        let rejected = Counter()
        let producer = TestThread {
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 512, alignment: 8)
            defer { buffer.deallocate() }
            var failures = 0
            for sequence in 0..<total {
                let pushed = Self.push(sequence, in: buffer) {
                    ring.tryPush(kind: $0, handle: $1, hostMicros: $2, value: $3)
                }
                if !pushed { failures += 1 }
            }
            rejected.add(failures)
            precondition(ring.pushWaiting(kind: .endOfStream, handle: 0, hostMicros: -1, value: UnsafeRawBufferPointer(start: nil, count: 0)))
        }

        var received = 0
        var last = -1
        var mismatches: [String] = []
        var ended = false
        while !ended {
            ring.waitForData()
            _ = ring.popBatch(max: 64) { entry in
                if entry.kind == .endOfStream {
                    ended = true
                    return
                }
                // The sequence number is recoverable from the time stamp; everything else must match it.
                let sequence = Int((entry.hostMicros - 17) / 1_000)
                if sequence <= last || !Self.matches(entry, sequence), mismatches.count < 5 {
                    mismatches.append("entry \(sequence) after \(last): got \(entry.kind) h=\(entry.handle)")
                }
                last = sequence
                received += 1
            }
        }
        producer.join()

        check(mismatches.isEmpty, "entries intact and in order, got \(mismatches)", &failures)
        check(ring.dropped == rejected.value, "\(rejected.value) rejected pushes counted as dropped, got \(ring.dropped)", &failures)
        check(received + ring.dropped == total, "received \(received) + dropped \(ring.dropped) == \(total)", &failures)
        check(received > 0, "some entries received", &failures)
        return failures
    }

    /// Every wake request from a third thread is seen, with the work it published, while a producer pushes.
    public static func wakeRequestsAreNeverLost() -> [String] {
        var failures: [String] = []
        let total = 200_000
        let commands = 20_000
        let ring = NotificationRing(capacityPowerOfTwo: 64)
        // The waker's mailbox: the number of the last command posted, and the consumer's acknowledgement.
        let posted = Atomic<Int>(0)
        let acknowledged = Atomic<Int>(0)
        let producer = waitingProducer(total: total, ring: ring)
        let waker = TestThread {
            for command in 1...commands {
                posted.store(command, ordering: .relaxed)
                ring.wakeConsumer()
                // One command in flight at a time: a lost wakeup leaves the consumer asleep on an empty ring.
                while acknowledged.load(ordering: .acquiring) != command { sched_yield() }
            }
        }

        var next = 0
        var ended = false
        var mismatches: [String] = []
        while !ended || acknowledged.load(ordering: .relaxed) != commands {
            ring.waitForData()
            _ = ring.popBatch(max: 32) { entry in
                if entry.kind == .endOfStream {
                    ended = true
                    return
                }
                if !Self.matches(entry, next), mismatches.count < 5 { mismatches.append("entry \(next)") }
                next += 1
            }
            // The hot path's single relaxed load per batch: after a return caused by a request, it must see the
            // command that request announced, or the waker waits forever (and the test hangs).
            let command = posted.load(ordering: .relaxed)
            if command != acknowledged.load(ordering: .relaxed) {
                acknowledged.store(command, ordering: .releasing)
            }
        }
        producer.join()
        waker.join()

        check(mismatches.isEmpty, "entries intact and in order, got \(mismatches)", &failures)
        check(next == total, "\(total) entries, got \(next)", &failures)
        check(acknowledged.load(ordering: .relaxed) == commands, "all \(commands) wake requests acknowledged", &failures)
        return failures
    }
}

/// A total one thread publishes and another reads after a join.
private final class Counter: Sendable {
    private let total = Atomic<Int>(0)
    var value: Int { total.load(ordering: .acquiring) }
    func add(_ amount: Int) { total.add(amount, ordering: .releasing) }
}

/// Records `what` when `condition` is false.
private func check(_ condition: Bool, _ what: String, _ failures: inout [String]) {
    if !condition { failures.append("expected " + what) }
}
