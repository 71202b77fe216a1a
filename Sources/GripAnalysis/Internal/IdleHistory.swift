/// A fixed-capacity ring of the most recent idle samples, and the baseline window: its newest samples, whose lower
/// median is the baseline.
///
/// Why the median is not kept up to date: an idle sample only asks whether it reached the on-level over the median,
/// and that is a question about counts (the median is at most `level` exactly when more than half of the window's
/// values are), which the window's minimum answers alone nearly always (a resting force is far below the minimum
/// plus the on-level, and the minimum is at most the median). The minimum comes from a monotonic queue, amortised O(1)
/// per sample; the count is a branch-free SIMD pass; the median's value itself is found only when it is needed
/// (an effort starts, or the window is about to be emptied), a few times a minute.
///
/// The zeros' signs: +0 and −0 are equal, so which of them is the median is a matter of order among equals, and the
/// baseline's sign is reported. The rule is the one a sorted window gives when a value enters after its equals and
/// the last of its equals leaves: the zeros of the window form a stack of signs (`zeroSigns`).
///
/// Invariants: the buffers hold `capacity` elements each, allocated once in `init` (and copied only when a copied
/// history is changed, as an array would be); the live samples are the `count` slots ending just before `head`,
/// oldest first; times are non-decreasing. The window is the newest `windowCount` live samples. `minimumQueue` holds
/// the slots of the window whose force is lower than every later one's, oldest first, so its front is the window's
/// minimum. The first `zeroCount` entries of `zeroSigns` say, bottom first, whether each zero of the window is −0.
struct IdleHistory: Sendable {
    private var buffers: Buffers
    private(set) var count = 0
    private var head = 0
    private var windowCount = 0
    /// The minimum queue is a ring in `buffers.minimumQueue`: `queueCount` slot numbers from `queueFront` on.
    private var queueFront = 0
    private var queueCount = 0
    private var zeroCount = 0
    let capacity: Int

    init(capacity: Int) {
        self.capacity = Swift.max(1, capacity)
        buffers = Buffers(capacity: self.capacity)
    }

    /// Appends one sample to the ring and the window, dropping the oldest when full. HOT PATH: no allocation.
    mutating func append(micros time: Int64, kilograms kg: Float) {
        makeUnique()
        if count == capacity, windowCount == capacity {
            // The slot about to be overwritten holds the window's oldest sample.
            removeOldestFromWindow()
        }
        let slot = head
        let kilograms = buffers.kilograms
        while queueCount > 0, kilograms[queueSlot(queueCount - 1)] >= kg { queueCount -= 1 }
        buffers.minimumQueue[wrapped(queueFront + queueCount)] = Int32(truncatingIfNeeded: slot)
        queueCount += 1
        if kg == 0 {
            buffers.zeroSigns[zeroCount] = kg.sign == .minus
            zeroCount += 1
        }
        buffers.micros[slot] = time
        kilograms[slot] = kg
        head = slot + 1 == capacity ? 0 : slot + 1
        count = Swift.min(count + 1, capacity)
        windowCount += 1
    }

    /// Drops the window's samples older than `since` for good (`since` must not decrease between calls).
    /// HOT PATH: no allocation; O(1) per expired sample.
    mutating func trimWindow(since: Int64) {
        // Only the counters change: the buffers stay shared if they are.
        let micros = buffers.micros
        while windowCount > 0, micros[slot(age: windowCount - 1)] < since { removeOldestFromWindow() }
    }

    /// Forgets every sample.
    mutating func removeAll() {
        count = 0
        head = 0
        resetWindow()
    }

    /// Empties the window (a new idle run starts); the ring keeps its samples for the rising edge.
    mutating func resetWindow() {
        windowCount = 0
        queueCount = 0
        zeroCount = 0
    }

    /// The `age`-th newest sample (0 = newest).
    func sample(age: Int) -> ForceSample {
        let index = slot(age: age)
        return ForceSample(micros: buffers.micros[index], kilograms: buffers.kilograms[index])
    }

    /// The window's lowest force; `nil` for an empty window.
    var windowMinimum: Float? { queueCount > 0 ? buffers.kilograms[queueSlot(0)] : nil }

    /// Whether the window's lower median is at most `level`; `false` for an empty window. HOT PATH: no allocation.
    func median(isAtMost level: Float) -> Bool {
        windowCount > 0 && countInWindow(atMost: level) > (windowCount - 1) / 2
    }

    /// The window's lower median (its `(windowCount − 1) / 2`-th smallest value); `nil` for an empty window.
    /// O(window²/8): once per effort, not per sample.
    func median() -> Float? {
        guard windowCount > 0 else { return nil }
        let rank = (windowCount - 1) / 2
        for age in 0..<windowCount {
            let value = buffers.kilograms[slot(age: age)]
            // `value` is the median when fewer than rank + 1 values are below it and at least rank + 1 are not
            // above it (no NaN ever enters: the segmenter rejects non-finite forces, so `<` is `<=` nextDown).
            guard countInWindow(atMost: value.nextDown) <= rank, countInWindow(atMost: value) > rank else { continue }
            guard value == 0 else { return value }
            let zerosBelow = rank - countInWindow(atMost: Float(0).nextDown)
            return buffers.zeroSigns[zerosBelow] ? -0.0 : 0.0
        }
        return nil  // unreachable: some value of the window has the median's rank
    }

    // MARK: - Private

    private func slot(age: Int) -> Int {
        var index = head - 1 - age
        if index < 0 { index += capacity }
        return index
    }

    /// The slot of the `position`-th entry of the minimum queue (0 = front).
    private func queueSlot(_ position: Int) -> Int { Int(buffers.minimumQueue[wrapped(queueFront + position)]) }

    /// A ring position in [0, 2 × capacity) brought into [0, capacity), without a division.
    private func wrapped(_ position: Int) -> Int { position >= capacity ? position - capacity : position }

    /// Copies the buffers if another history shares them, as an array would on its first change.
    private mutating func makeUnique() {
        if !isKnownUniquelyReferenced(&buffers) { buffers = Buffers(copying: buffers) }
    }

    /// Takes the window's oldest sample out of the window (its slot stays in the ring).
    private mutating func removeOldestFromWindow() {
        let oldest = slot(age: windowCount - 1)
        if queueCount > 0, queueSlot(0) == oldest {
            queueFront = wrapped(queueFront + 1)
            queueCount -= 1
        }
        // Among equal values the last to enter leaves first (see the type's comment).
        if buffers.kilograms[oldest] == 0 { zeroCount -= 1 }
        windowCount -= 1
    }

    /// How many of the window's values are at most `level`: the window is one or two runs of the ring.
    private func countInWindow(atMost level: Float) -> Int {
        let start = slot(age: windowCount - 1)
        let values = buffers.kilograms
        if start + windowCount <= capacity {
            return Self.count(atMost: level, in: UnsafeBufferPointer(start: values + start, count: windowCount))
        }
        let tail = capacity - start
        return Self.count(atMost: level, in: UnsafeBufferPointer(start: values + start, count: tail))
            + Self.count(atMost: level, in: UnsafeBufferPointer(start: values, count: windowCount - tail))
    }

    /// How many of `values` are at most `level`: SIMD compares with no data-dependent branch (noisy rest forces
    /// would mispredict a search's branches half the time).
    private static func count(atMost level: Float, in values: UnsafeBufferPointer<Float>) -> Int {
        guard let base = values.baseAddress else { return 0 }
        let count = values.count
        let probe = SIMD8<Float>(repeating: level)
        var counts = SIMD8<Int32>()
        var index = 0
        let raw = UnsafeRawPointer(base)
        while index &+ 8 <= count {
            let chunk = raw.loadUnaligned(fromByteOffset: index &* 4, as: SIMD8<Float>.self)
            counts &-= unsafeBitCast(chunk .<= probe, to: SIMD8<Int32>.self)
            index &+= 8
        }
        var total = Int(counts.wrappedSum())
        while index < count {
            if base[index] <= level { total &+= 1 }
            index &+= 1
        }
        return total
    }
}

/// The history's four buffers, `capacity` elements each.
///
/// Why not arrays: a sample touches three of them, and each array write checked its own uniqueness and bounds; the
/// history checks uniqueness once per change (`makeUnique`) and keeps its indices in range itself (its invariants).
// SAFETY (@unchecked Sendable): the buffers are written only through an `IdleHistory` that holds the only reference
// (`makeUnique` copies them otherwise), so a value sent to another thread never shares what it writes.
private final class Buffers: @unchecked Sendable {
    let capacity: Int
    let micros: UnsafeMutablePointer<Int64>
    let kilograms: UnsafeMutablePointer<Float>
    let minimumQueue: UnsafeMutablePointer<Int32>
    let zeroSigns: UnsafeMutablePointer<Bool>

    init(capacity: Int) {
        self.capacity = capacity
        micros = .allocate(capacity: capacity)
        micros.initialize(repeating: 0, count: capacity)
        kilograms = .allocate(capacity: capacity)
        kilograms.initialize(repeating: 0, count: capacity)
        minimumQueue = .allocate(capacity: capacity)
        minimumQueue.initialize(repeating: 0, count: capacity)
        zeroSigns = .allocate(capacity: capacity)
        zeroSigns.initialize(repeating: false, count: capacity)
    }

    convenience init(copying other: Buffers) {
        self.init(capacity: other.capacity)
        micros.update(from: other.micros, count: capacity)
        kilograms.update(from: other.kilograms, count: capacity)
        minimumQueue.update(from: other.minimumQueue, count: capacity)
        zeroSigns.update(from: other.zeroSigns, count: capacity)
    }

    deinit {
        micros.deallocate()
        kilograms.deallocate()
        minimumQueue.deallocate()
        zeroSigns.deallocate()
    }
}
