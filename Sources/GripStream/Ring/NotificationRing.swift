// NotificationRing: the lock-free single-producer / single-consumer ring between a notification source (BlueZ or
// a capture replay) and the consumer thread that decodes and segments (docs/design.md, "Hot path").
//
// INVARIANTS
// 1. One producer thread calls `tryPush` / `pushIfRoom` / `pushWaiting`; one consumer thread calls `popBatch` /
//    `waitForData`. Which thread each one is may change over time only across a happens-before edge (a join, a lock
//    hand-off); one thread may hold both roles (the daemon's consumer pushes what it drains from a paced socket,
//    under the producers' lock, then pops it). Anything else is a data race. `dropped`, `oversized` and `capacity` may be read, and `wakeConsumer` called,
//    from any thread.
// 2. `capacity` is a power of two, so slot `i` of the monotonically increasing sequence lives at `i & mask`.
//    `tail` and `head` are sequence numbers (never wrapped into the slot range; `Int` does not overflow in practice
//    and all arithmetic on them is wrapping anyway), with `0 <= tail - head <= capacity`.
// 3. Only the producer writes `tail` and the producer's cached copy of `head`; only the consumer writes `head` and
//    the consumer's cached copy of `tail`. Slots `[head, tail)` belong to the consumer, all others to the producer.
// 4. Memory: one 512-byte control block (128-byte aligned) and one slot array, both allocated in `init` and freed
//    in `close()`/deinit. Control block words (8 bytes each):
//        offset   0  head                 written by the consumer
//        offset   8  consumer's cached tail   (consumer only)
//        offset 128  tail                 written by the producer
//        offset 136  producer's cached head   (producer only)
//        offset 256  consumerSleeping     set by the consumer, cleared by either
//        offset 384  producerSleeping     set by the producer, cleared by either
//        offset 448  wakeRequested        set by any thread (`wakeConsumer`), cleared by the consumer
//    so the two hot indices never share a cache line (no false sharing even with adjacent-line prefetch).
//    A slot is 576 bytes (9 cache lines): hostMicros Int64 @0, handle UInt16 @8, length UInt16 @10,
//    kind UInt8 @12, value bytes @16..<528. Slots start on a cache line, so a short value touches one line.
//
// ORDERINGS (who pairs with whom)
// - Publish: the producer writes a slot, then stores `tail` (release, see below) — paired with the consumer's
//   acquiring load of `tail`, so the consumer sees the whole slot.
// - Reclaim: the consumer reads the slots, then stores `head` (release) — paired with the producer's acquiring
//   load of `head` when the ring looks full, so the producer never overwrites a slot still being read.
// - Cached opposite index: each side re-reads the other side's index (acquire) only when its cached copy says
//   full (producer) or cannot fill the requested batch (consumer, at most once per popBatch). The cached copy is
//   never ahead of the real index, so a stale copy only causes a refresh, never a wrong answer.
//
// SLEEP / WAKE WITHOUT LOST WAKEUPS (waitForData; pushWaiting is the same protocol with the roles swapped)
// - Consumer, ring empty: store consumerSleeping = 1 (seq_cst); load tail (seq_cst); if data arrived, clear the
//   flag and return; otherwise read() the data eventfd (blocks); clear the flag; loop until the ring is non-empty.
// - Producer, after every push: store tail (seq_cst); load consumerSleeping (seq_cst); only if it is 1,
//   exchange it to 0 and, if that exchange saw 1, write() the eventfd once.
// - Why no wakeup is lost: this is Dekker's pattern. All four operations are seq_cst, so they are in one total
//   order S consistent with program order. Either the producer's tail store precedes the consumer's flag store in
//   S, and then the consumer's later tail load sees the new tail and does not sleep; or the consumer's flag store
//   precedes the producer's tail store, and then the producer's later flag load sees 1 and writes the eventfd.
//   A plain release store of tail would not do: it may stay in the store buffer past the producer's flag load
//   (StoreLoad reordering, allowed on x86 and ARM), and both sides would miss each other. On arm64 (the Pi) a
//   seq_cst store + seq_cst load is `stlr` + `ldar`, which the architecture keeps ordered without a full fence;
//   on x86 the store is one `xchg`.
// - The producer's wake has hysteresis: the consumer wakes it only once the occupancy is at most half the ring,
//   and the producer's re-check uses the same bound. No wakeup is lost: while the producer sleeps it pushes
//   nothing, so the consumer's batches after the producer's re-check see its flag (seq_cst, as above) and drain
//   the ring; the batch that reaches half (at the latest the one that empties it) writes the eventfd. So the
//   two never sleep at once: the consumer sleeps only on an empty ring, which is at most half full.
//   The consumer's wake has no such delay: the first entry wakes it (latency matters there).
// - A producer that pushes a burst may defer the wake to the burst's last entry (`tryPush(wakesConsumer: false)`
//   for each, then `wakeSleepingConsumerAfterBurst`): its flag load then comes after several tail stores instead of
//   after each, and the Dekker argument above holds for the last of them. The consumer then wakes once per burst
//   and sees the whole burst, instead of waking at the first entry, taking it alone and sleeping again.
// - Waking the consumer without an entry (`wakeConsumer`, any thread, e.g. a command for the consumer): store
//   wakeRequested = 1 (seq_cst); load consumerSleeping (seq_cst); if it is 1, write() the data eventfd (without
//   touching the flag). The consumer's re-check after announcing its sleep loads wakeRequested (seq_cst) as well
//   as tail, and `waitForData` returns when either says so, clearing wakeRequested (acquire) on the way out.
//   The same Dekker argument holds with wakeRequested in the role of tail: either the waker's flag store precedes
//   the consumer's sleep announcement in S, and the consumer's re-check sees the request and does not sleep; or
//   the announcement precedes it, and the waker's later load sees consumerSleeping = 1 and writes the eventfd.
//   The waker never clears consumerSleeping, so it cannot take the wakeup from the producer (or another waker):
//   its write is additional, at worst one stale count, absorbed as below. Whatever the caller published before
//   `wakeConsumer` (a mailbox entry) is visible to the consumer once `waitForData` has returned because of it:
//   the waker's seq_cst store is a release, the consumer's clearing exchange an acquire.
//   Several wakers may race; one request flag serves them all, because the consumer drains its whole mailbox
//   after each return.
// - Why no periodic or repeated wakeups: the producer writes the eventfd only when it turns the flag from 1 to 0,
//   i.e. once per sleep announcement. A write can still arrive after the consumer found data on its re-check
//   (a stale count); the consumer then wakes once, finds the ring empty and sleeps again, which is why
//   `waitForData` loops and never returns while the ring is empty.
//
// Hot functions are marked `// HOT PATH`. The common case of `tryPush` and `popBatch` is a few loads, a memcpy and
// one store; no allocation, lock, syscall or log. Syscalls happen only on the sleep/wake transitions.

import Atomics

/// What a ring entry carries: a value received from the device, a value written to it, or a link event.
public enum RingEntryKind: UInt8, Sendable, CaseIterable {
    /// A notification (or indication) value received from the device.
    case notification = 0
    /// A value the host wrote to the device (a command such as start/stop measurement).
    case write = 1
    /// The device connected; the value is empty.
    case connected = 2
    /// The device disconnected; the value is empty.
    case disconnected = 3
    /// The source has no more entries (end of a capture, shutdown); the value is empty.
    case endOfStream = 4
}

/// One entry handed to the `popBatch` closure.
///
/// - Important: `value` points into the ring's slot and is valid only inside the `popBatch` closure that received
///   the entry. Copy the bytes (or decode them) before returning; never store the entry or the pointer.
@unsafe
public struct RingEntry {
    /// What the entry is.
    public let kind: RingEntryKind
    /// The ATT attribute handle the value belongs to (0 for link events).
    public let handle: UInt16
    /// Host monotonic time when the producer received the entry, in microseconds.
    public let hostMicros: Int64
    /// The value bytes (0...512 of them), valid only inside the `popBatch` closure.
    public let value: UnsafeRawBufferPointer
}

/// A fixed-slot, lock-free SPSC ring of BLE notifications between one producer thread and one consumer thread.
///
/// Push copies the value into a preallocated slot; pop hands out a pointer into the slot. A full ring either
/// rejects the push (`tryPush`, the radio path, which counts a drop) or blocks the producer (`pushWaiting`,
/// the replay path). An empty ring blocks the consumer in `waitForData` without any periodic wakeup.
///
/// - Important: Exactly one producer thread and one consumer thread (see the invariants at the top of
///   `NotificationRing.swift`). Call `close()` only when neither is using the ring.
// SAFETY: @unchecked Sendable because the class is shared between exactly two threads whose roles are a documented
// contract (invariant 1): every field either is an immutable `let`, is an atomic, or is raw slot memory whose
// ownership passes between the two threads through the release/acquire pairs on `head` and `tail`.
// SAFETY: @safe because the two raw pointers never leave the class: every access is bounds-checked by invariant 2-3
// (mask, length <= 512) and ownership-checked by the index protocol, and every public method traps once close()
// has run (isOpen), so a use after close is a precondition failure, not a use after free. The unsafety that remains
// is visible in the API's own types (the caller's UnsafeRawBufferPointer, the @unsafe RingEntry) and is marked at
// the call site; calling close() concurrently with a push or pop breaks invariant 1 like any third thread would.
@safe
public final class NotificationRing: @unchecked Sendable {
    /// The largest value a slot holds. An ATT value never exceeds 512 bytes (Core Spec Vol 3 Part F §3.2.9).
    public static let maxValueLength = 512

    /// The number of slots (a power of two).
    public let capacity: Int

    private static let slotStride = 576
    private static let valueOffset = 16
    private static let controlBlockSize = 512
    private static let controlBlockAlignment = 128
    /// Checks of the opposite index before a thread announces it is going to sleep: a short, bounded spin.
    private static let spinLimit = 64

    private let mask: Int
    /// A sleeping producer is woken when the occupancy drops to this (half the ring), not on every batch, so a
    /// replay that outpaces the consumer costs one sleep/wake pair per half ring instead of one per batch.
    private let producerWakeOccupancy: Int
    private let control: UnsafeMutableRawPointer
    private let slots: UnsafeMutableRawPointer

    private let head: UnsafeAtomic<Int>
    private let consumerCachedTail: UnsafeAtomic<Int>
    private let tail: UnsafeAtomic<Int>
    private let producerCachedHead: UnsafeAtomic<Int>
    private let consumerSleeping: UnsafeAtomic<Int>
    private let producerSleeping: UnsafeAtomic<Int>
    private let wakeRequested: UnsafeAtomic<Int>

    private let droppedCount = ManagedAtomic<Int>(0)
    private let oversizedCount = ManagedAtomic<Int>(0)
    private let isOpen = ManagedAtomic<Bool>(true)

    /// Written by the producer to wake a sleeping consumer.
    let dataReady: EventFD
    /// Written by the consumer to wake a sleeping producer.
    let spaceReady: EventFD

    /// Creates an empty ring, allocating all slots at once.
    ///
    /// - Parameter capacityPowerOfTwo: The number of slots: a power of two between 1 and 2^20.
    /// - Important: Traps if the capacity is not a power of two in range, or if the process cannot create two
    ///   eventfds (out of file descriptors), which a daemon cannot run without.
    public init(capacityPowerOfTwo: Int) {
        precondition(
            capacityPowerOfTwo > 0 && capacityPowerOfTwo <= 1 << 20 && capacityPowerOfTwo & (capacityPowerOfTwo - 1) == 0,
            "NotificationRing: capacity \(capacityPowerOfTwo) is not a power of two in 1...2^20"
        )
        precondition(MemoryLayout<UnsafeAtomic<Int>.Storage>.stride == 8, "NotificationRing: unexpected atomic layout")
        capacity = capacityPowerOfTwo
        mask = capacityPowerOfTwo - 1
        producerWakeOccupancy = capacityPowerOfTwo / 2

        // SAFETY: freshly allocated, correctly sized and aligned; every control word is initialized before any
        // UnsafeAtomic is formed over it, and the slot bytes are raw storage written before they are read
        // (invariant 3). Both blocks are freed exactly once in close().
        unsafe control = UnsafeMutableRawPointer.allocate(
            byteCount: Self.controlBlockSize, alignment: Self.controlBlockAlignment
        )
        let words = unsafe control.bindMemory(
            to: UnsafeAtomic<Int>.Storage.self, capacity: Self.controlBlockSize / 8
        )
        unsafe words.initialize(repeating: UnsafeAtomic<Int>.Storage(0), count: Self.controlBlockSize / 8)
        // SAFETY: word indices are offsets / 8 from the table in the header, all below 64.
        head = unsafe UnsafeAtomic(at: words + 0)
        consumerCachedTail = unsafe UnsafeAtomic(at: words + 1)
        tail = unsafe UnsafeAtomic(at: words + 16)
        producerCachedHead = unsafe UnsafeAtomic(at: words + 17)
        consumerSleeping = unsafe UnsafeAtomic(at: words + 32)
        producerSleeping = unsafe UnsafeAtomic(at: words + 48)
        wakeRequested = unsafe UnsafeAtomic(at: words + 56)
        unsafe slots = UnsafeMutableRawPointer.allocate(byteCount: capacityPowerOfTwo * Self.slotStride, alignment: 64)

        do {
            dataReady = try EventFD.make()
            spaceReady = try EventFD.make()
        } catch {
            fatalError("NotificationRing: cannot create an eventfd: \(error)")
        }
    }

    deinit {
        close()
    }

    /// Frees the slots, the indices and both eventfds. Calling it again does nothing.
    ///
    /// - Important: Call only when neither the producer nor the consumer is inside a ring method (for example after
    ///   the consumer has popped `.endOfStream` and both threads have stopped). The counters stay readable; any
    ///   other method traps afterwards.
    public func close() {
        guard isOpen.exchange(false, ordering: .acquiringAndReleasing) else { return }
        dataReady.close()
        spaceReady.close()
        // SAFETY: both blocks were allocated in init, and the exchange above lets only one caller get here.
        unsafe control.bindMemory(to: UnsafeAtomic<Int>.Storage.self, capacity: Self.controlBlockSize / 8)
            .deinitialize(count: Self.controlBlockSize / 8)
        unsafe control.deallocate()
        unsafe slots.deallocate()
    }

    // MARK: Counters (any thread)

    /// Entries rejected by `tryPush` because the ring was full. Readable from any thread.
    public var dropped: Int { droppedCount.load(ordering: .relaxed) }

    /// Entries rejected because their value was longer than `maxValueLength`. Readable from any thread.
    public var oversized: Int { oversizedCount.load(ordering: .relaxed) }

    /// Whether the consumer has announced that it sleeps in `waitForData` (for tests and diagnostics).
    var consumerIsSleeping: Bool { consumerSleeping.load(ordering: .relaxed) != 0 }

    /// Whether the producer has announced that it sleeps in `pushWaiting` (for tests and diagnostics).
    var producerIsSleeping: Bool { producerSleeping.load(ordering: .relaxed) != 0 }

    // MARK: Producer

    /// What a push did with an entry.
    public enum PushOutcome: Sendable {
        /// Queued.
        case pushed
        /// The ring had no free slot.
        case full
        /// The value was longer than `maxValueLength` (counted in `oversized`); no retry can queue it.
        case oversized
    }

    /// Copies one entry into the ring if there is room.
    ///
    /// - Parameters:
    ///   - kind: What the entry is.
    ///   - handle: The ATT attribute handle (0 for link events).
    ///   - hostMicros: Host monotonic time of reception, in microseconds.
    ///   - value: The value bytes, at most `maxValueLength`; copied before the call returns.
    /// - Returns: `true` if the entry was queued; `false` if the ring was full (counted in `dropped`) or the value
    ///   was too long (counted in `oversized`).
    /// - Important: Producer thread only.
    // HOT PATH: no allocation, lock, syscall or log (except the eventfd write when the consumer sleeps)
    ///   - wakesConsumer: false for all but the end of a burst: the producer then calls
    ///     `wakeSleepingConsumerAfterBurst()` once it has pushed the burst.
    public func tryPush(
        kind: RingEntryKind, handle: UInt16, hostMicros: Int64, value: UnsafeRawBufferPointer, wakesConsumer: Bool = true
    ) -> Bool {
        precondition(isOpen.load(ordering: .relaxed), "NotificationRing: tryPush after close()")
        switch unsafe push(kind: kind, handle: handle, hostMicros: hostMicros, value: value, wakesConsumer: wakesConsumer) {
        case .pushed: return true
        case .oversized: return false
        case .full:
            droppedCount.wrappingIncrement(ordering: .relaxed)
            return false
        }
    }

    /// Like `tryPush`, but a full ring is not counted as a drop: for a producer that tries again later instead of
    /// sleeping in `pushWaiting` (one that shares the producer role through a lock, which it must not hold asleep).
    /// - Returns: `.full` is the only outcome worth a retry.
    /// - Important: Producer thread only.
    public func pushIfRoom(
        kind: RingEntryKind, handle: UInt16, hostMicros: Int64, value: UnsafeRawBufferPointer
    ) -> PushOutcome {
        precondition(isOpen.load(ordering: .relaxed), "NotificationRing: pushIfRoom after close()")
        return unsafe push(kind: kind, handle: handle, hostMicros: hostMicros, value: value)
    }

    /// Copies one entry into the ring, blocking while the ring is full (the replay path: nothing is dropped).
    ///
    /// Spins briefly, then sleeps on an eventfd that the consumer writes once the ring has drained to half.
    ///
    /// - Parameters:
    ///   - kind: What the entry is.
    ///   - handle: The ATT attribute handle (0 for link events).
    ///   - hostMicros: Host monotonic time of reception, in microseconds.
    ///   - value: The value bytes, at most `maxValueLength`; copied before the call returns.
    /// - Returns: `true` once the entry is queued; `false` only if the value was too long (counted in `oversized`).
    /// - Important: Producer thread only. Blocks forever if the consumer stops popping.
    public func pushWaiting(kind: RingEntryKind, handle: UInt16, hostMicros: Int64, value: UnsafeRawBufferPointer) -> Bool {
        precondition(isOpen.load(ordering: .relaxed), "NotificationRing: pushWaiting after close()")
        var spins = 0
        while true {
            switch unsafe push(kind: kind, handle: handle, hostMicros: hostMicros, value: value) {
            case .pushed: return true
            case .oversized: return false
            case .full: break
            }
            if spins < Self.spinLimit {
                spins += 1
                continue
            }
            // Announce the sleep, then re-check (Dekker, see the header); the consumer's head store is seq_cst.
            // The re-check uses the same low-water mark as the consumer's wake condition.
            producerSleeping.store(1, ordering: .sequentiallyConsistent)
            let currentTail = tail.load(ordering: .relaxed)
            if currentTail &- head.load(ordering: .sequentiallyConsistent) <= producerWakeOccupancy {
                producerSleeping.store(0, ordering: .relaxed)
                continue
            }
            do {
                try spaceReady.wait()
            } catch {
                preconditionFailure("NotificationRing: waiting for space failed: \(error)")
            }
            producerSleeping.store(0, ordering: .relaxed)
        }
    }

    // HOT PATH: no allocation, lock, syscall or log (except the eventfd write when the consumer sleeps)
    @inline(__always)
    private func push(
        kind: RingEntryKind, handle: UInt16, hostMicros: Int64, value: UnsafeRawBufferPointer, wakesConsumer: Bool = true
    ) -> PushOutcome {
        let length = value.count
        if length > Self.maxValueLength {
            oversizedCount.wrappingIncrement(ordering: .relaxed)
            return .oversized
        }
        let currentTail = tail.load(ordering: .relaxed)  // only this thread writes tail
        if currentTail &- producerCachedHead.load(ordering: .relaxed) == capacity {
            // Looks full: refresh. Acquire pairs with the consumer's head store, so its reads of the slot we are
            // about to overwrite happened before.
            let freshHead = head.load(ordering: .acquiring)
            producerCachedHead.store(freshHead, ordering: .relaxed)
            if currentTail &- freshHead == capacity { return .full }
        }
        // SAFETY: slot (tail & mask) is in [tail, head + capacity), owned by the producer (invariant 3); the
        // offsets stay inside its 576 bytes because length <= 512.
        let slot = unsafe slots + (currentTail & mask) &* Self.slotStride
        unsafe slot.storeBytes(of: hostMicros, toByteOffset: 0, as: Int64.self)
        unsafe slot.storeBytes(of: handle, toByteOffset: 8, as: UInt16.self)
        unsafe slot.storeBytes(of: UInt16(truncatingIfNeeded: length), toByteOffset: 10, as: UInt16.self)
        unsafe slot.storeBytes(of: kind.rawValue, toByteOffset: 12, as: UInt8.self)
        if length > 0, let source = value.baseAddress {
            // SAFETY: source has `length` readable bytes (the caller's buffer); the destination has 512.
            unsafe (slot + Self.valueOffset).copyMemory(from: source, byteCount: length)
        }
        // Publish (release) and order before the sleep-flag load (seq_cst): see SLEEP / WAKE in the header.
        tail.store(currentTail &+ 1, ordering: .sequentiallyConsistent)
        if wakesConsumer && consumerSleeping.load(ordering: .sequentiallyConsistent) != 0 {
            wakeSleepingConsumer()
        }
        return .pushed
    }

    /// Wakes the consumer if it sleeps, after a burst pushed with `wakesConsumer: false` (see SLEEP / WAKE).
    /// - Important: Producer thread only. Costs a `write(2)` only when the consumer sleeps.
    public func wakeSleepingConsumerAfterBurst() {
        if consumerSleeping.load(ordering: .sequentiallyConsistent) != 0 {
            wakeSleepingConsumer()
        }
    }

    @inline(never)
    private func wakeSleepingConsumer() {
        guard consumerSleeping.exchange(0, ordering: .relaxed) != 0 else { return }
        do {
            try dataReady.signal()
        } catch {
            preconditionFailure("NotificationRing: waking the consumer failed: \(error)")
        }
    }

    // MARK: Consumer

    /// Pops up to `max` entries in FIFO order, calling `body` for each.
    ///
    /// The slots are released to the producer only after the whole batch, in one index store.
    ///
    /// - Parameters:
    ///   - max: The most entries to pop in this call.
    ///   - body: Called once per entry, in push order. The entry's `value` is valid only during the call; `body`
    ///     must not call back into the ring's consumer methods.
    /// - Returns: The number of entries popped (0 if the ring looked empty).
    /// - Important: Consumer thread only.
    // HOT PATH: no allocation, lock, syscall or log (except the eventfd write when the producer sleeps)
    public func popBatch(max: Int, _ body: (RingEntry) -> Void) -> Int {
        precondition(isOpen.load(ordering: .relaxed), "NotificationRing: popBatch after close()")
        let wanted = Swift.max(max, 0)
        let currentHead = head.load(ordering: .relaxed)  // only this thread writes head
        var knownTail = consumerCachedTail.load(ordering: .relaxed)
        if knownTail &- currentHead < wanted {
            // The cached tail cannot fill this batch: refresh it (once per batch, not per entry). Acquire pairs
            // with the producer's tail store, so the slots up to the new tail are fully written.
            knownTail = tail.load(ordering: .acquiring)
            consumerCachedTail.store(knownTail, ordering: .relaxed)
            if knownTail == currentHead { return 0 }
        }
        let count = Swift.min(wanted, knownTail &- currentHead)
        var sequence = currentHead
        for _ in 0..<count {
            // SAFETY: slots in [head, tail) are owned by the consumer and fully written (invariant 3, publish).
            let slot = unsafe slots + (sequence & mask) &* Self.slotStride
            let rawKind = unsafe slot.load(fromByteOffset: 12, as: UInt8.self)
            guard let kind = RingEntryKind(rawValue: rawKind) else {
                preconditionFailure("NotificationRing: slot holds unknown kind \(rawKind)")
            }
            let length = Int(unsafe slot.load(fromByteOffset: 10, as: UInt16.self))
            // SAFETY: the entry's pointer is valid until head moves past this slot, which is after body returns;
            // the documented contract forbids keeping it.
            let entry = unsafe RingEntry(
                kind: kind,
                handle: unsafe slot.load(fromByteOffset: 8, as: UInt16.self),
                hostMicros: unsafe slot.load(fromByteOffset: 0, as: Int64.self),
                value: unsafe UnsafeRawBufferPointer(start: slot + Self.valueOffset, count: length)
            )
            unsafe body(entry)
            sequence &+= 1
        }
        if count > 0 {
            // Release the slots (release) and order before the sleep-flag load (seq_cst): see the header.
            head.store(sequence, ordering: .sequentiallyConsistent)
            if producerSleeping.load(ordering: .sequentiallyConsistent) != 0 {
                wakeProducer(head: sequence)
            }
        }
        return count
    }

    /// Wakes a sleeping producer once the ring has drained to the low-water mark.
    @inline(never)
    private func wakeProducer(head currentHead: Int) {
        // A sleeping producer does not push, so tail is stable here; acquire is not needed for correctness (the
        // producer's flag store was seq_cst), the load only has to be fresh enough to measure the occupancy.
        guard tail.load(ordering: .acquiring) &- currentHead <= producerWakeOccupancy else { return }
        guard producerSleeping.exchange(0, ordering: .relaxed) != 0 else { return }
        do {
            try spaceReady.signal()
        } catch {
            preconditionFailure("NotificationRing: waking the producer failed: \(error)")
        }
    }

    /// Asks the consumer to return from `waitForData` once, without pushing an entry: for a thread that has left
    /// the consumer something to do besides popping (a command in a mailbox it checks after every wait).
    ///
    /// Publish the work first, then call this: the consumer sees the work once `waitForData` has returned (see
    /// SLEEP / WAKE in the header). A consumer that is not waiting returns from its next `waitForData` at once.
    ///
    /// - Important: Any thread. Costs a `write(2)` only when the consumer sleeps.
    public func wakeConsumer() {
        precondition(isOpen.load(ordering: .relaxed), "NotificationRing: wakeConsumer after close()")
        wakeRequested.store(1, ordering: .sequentiallyConsistent)
        guard consumerSleeping.load(ordering: .sequentiallyConsistent) != 0 else { return }
        do {
            try dataReady.signal()
        } catch {
            preconditionFailure("NotificationRing: waking the consumer failed: \(error)")
        }
    }

    /// Blocks until the ring holds at least one entry or `wakeConsumer()` was called; returns at once if either
    /// already holds.
    ///
    /// Spins briefly, then announces that the consumer sleeps and blocks on an eventfd that the producer writes
    /// only on the empty → non-empty transition (and `wakeConsumer` only when asked): an idle ring costs no CPU
    /// and no periodic wakeups. A wake request is consumed by the return it causes.
    ///
    /// - Important: Consumer thread only. Blocks forever if the producer never pushes again and nobody wakes it;
    ///   a producer that stops pushes `.endOfStream` (with `pushWaiting`) first.
    public func waitForData() {
        waitForData(timeoutMicros: nil)
    }

    /// Like `waitForData()`, but returns after at most `timeoutMicros` (nil: no limit), for a consumer that also
    /// has work of its own on a schedule (draining a paced notify socket).
    ///
    /// A timed-out sleep may leave a count in the eventfd (a producer that saw the sleep flag just before it was
    /// cleared); the next wait absorbs it as a stale wake-up, as described in the header.
    ///
    /// - Returns: true when the ring holds an entry or a wake request came, false when the time ran out.
    /// - Important: Consumer thread only.
    @discardableResult
    public func waitForData(timeoutMicros: Int64?) -> Bool {
        precondition(isOpen.load(ordering: .relaxed), "NotificationRing: waitForData after close()")
        let currentHead = head.load(ordering: .relaxed)
        for _ in 0..<Self.spinLimit
        where tail.load(ordering: .acquiring) != currentHead || wakeRequested.load(ordering: .relaxed) != 0 {
            clearWakeRequest()
            return true
        }
        let deadline = timeoutMicros.map { ContinuousClock.now + .microseconds(max(0, $0)) }
        while true {
            // Announce the sleep, then re-check (Dekker, see the header); the producer's tail store and the
            // waker's request store are seq_cst.
            consumerSleeping.store(1, ordering: .sequentiallyConsistent)
            if tail.load(ordering: .sequentiallyConsistent) != currentHead
                || wakeRequested.load(ordering: .sequentiallyConsistent) != 0
            {
                consumerSleeping.store(0, ordering: .relaxed)
                clearWakeRequest()
                return true
            }
            let woken: Bool
            do {
                if let deadline {
                    // Rounded up, so the wait does not end just short of the deadline and spin.
                    let (seconds, attoseconds) = ContinuousClock.now.duration(to: deadline).components
                    let milliseconds = max(0, seconds * 1_000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000)
                    woken = try dataReady.wait(milliseconds: Int32(clamping: milliseconds))
                } else {
                    try dataReady.wait()
                    woken = true
                }
            } catch {
                preconditionFailure("NotificationRing: waiting for data failed: \(error)")
            }
            consumerSleeping.store(0, ordering: .relaxed)
            // A stale eventfd count (see the header) can wake us while the ring is still empty: loop.
            if tail.load(ordering: .acquiring) != currentHead || wakeRequested.load(ordering: .relaxed) != 0 {
                clearWakeRequest()
                return true
            }
            if !woken { return false }
        }
    }

    /// Consumes a pending wake request; acquire pairs with the waker's store, so what it published is visible.
    @inline(__always)
    private func clearWakeRequest() {
        if wakeRequested.load(ordering: .relaxed) != 0 {
            _ = wakeRequested.exchange(0, ordering: .acquiring)
        }
    }
}
