/// A fixed-capacity ring of the most recent idle samples, with a sliding-window median kept up to date as
/// samples arrive.
///
/// Why a sorted window: the baseline is the median of the idle samples of the last 1.5 s, needed for every idle
/// sample. Selecting it anew each time cost O(window) per sample, most of a long replay's time. The
/// window's values are instead kept sorted: a sample enters and an expired one leaves by binary search and one
/// short `memmove` (≤ a few hundred floats), and the median is read in O(1).
///
/// In an idle run one sample enters and (at a steady rate) one expires per call, so `append` leaves the newest
/// force pending and `median(since:)` merges it with the first expiry: one memmove of the values between the two
/// positions instead of two of the window's tail. Positions are found by counting (SIMD, branch-free) rather than
/// by binary search, whose branches a noisy rest mispredicts half the time (Benchmarks/README.md has the
/// figures).
///
/// Invariants: `micros` and `kilograms` always have `capacity` elements (allocated once in `init`); the live
/// samples are the `count` slots ending just before `head`, oldest first; times are non-decreasing. The window is
/// the newest `windowCount` live samples; `sorted` holds exactly their forces in ascending order, except the
/// newest's while it is `pending`.
struct IdleHistory: Sendable {
    private var micros: [Int64]
    private var kilograms: [Float]
    /// Forces of the window, ascending; capacity reserved in `init`, never grown.
    private var sorted: [Float]
    private(set) var count = 0
    private var head = 0
    private var windowCount = 0
    /// The newest sample's force, in the window but not yet in `sorted` (see the type's comment).
    private var pending: Float?
    let capacity: Int

    init(capacity: Int) {
        self.capacity = Swift.max(1, capacity)
        micros = Array(repeating: 0, count: self.capacity)
        kilograms = Array(repeating: 0, count: self.capacity)
        sorted = []
        sorted.reserveCapacity(self.capacity)
    }

    /// Appends one sample to the ring and the window, dropping the oldest when full. HOT PATH: no allocation.
    mutating func append(micros time: Int64, kilograms kg: Float) {
        insertPending()
        if count == capacity, windowCount == capacity {
            // The slot about to be overwritten is the window's oldest sample.
            removeFromWindow(sample(age: capacity - 1).kilograms)
        }
        micros[head] = time
        kilograms[head] = kg
        head = head + 1 == capacity ? 0 : head + 1
        count = Swift.min(count + 1, capacity)
        pending = kg
        windowCount += 1
    }

    /// Forgets every sample.
    mutating func removeAll() {
        count = 0
        head = 0
        resetWindow()
    }

    /// Empties the window (a new idle run starts); the ring keeps its samples for the rising edge.
    mutating func resetWindow() {
        sorted.removeAll(keepingCapacity: true)
        pending = nil
        windowCount = 0
    }

    /// The `age`-th newest sample (0 = newest).
    func sample(age: Int) -> ForceSample {
        var index = head - 1 - age
        if index < 0 { index += capacity }
        return ForceSample(micros: micros[index], kilograms: kilograms[index])
    }

    /// Median (lower median for an even count) of the window's samples with `micros ≥ since`; `nil` if none.
    /// Samples older than `since` leave the window for good (`since` must not decrease between calls).
    /// HOT PATH: no allocation; O(1) plus O(log n) per expired sample.
    mutating func median(since: Int64) -> Float? {
        while windowCount > 0 {
            let oldest = sample(age: windowCount - 1)
            if oldest.micros >= since { break }
            if let newest = pending {
                pending = nil
                if windowCount == 1 {
                    // The expiring sample is the pending one itself: it never reached `sorted`.
                    windowCount = 0
                } else {
                    replaceInWindow(oldest.kilograms, with: newest)
                }
            } else {
                removeFromWindow(oldest.kilograms)
            }
        }
        insertPending()
        guard windowCount > 0 else { return nil }
        return sorted[(windowCount - 1) / 2]
    }

    /// Moves the pending force into `sorted`.
    private mutating func insertPending() {
        guard let kg = pending else { return }
        pending = nil
        insertSorted(kg)
    }

    /// Removes `old` from the window and puts `new` (the pending newest) in its sorted place, in one pass.
    ///
    /// The result is exactly that of `insertSorted(new)` then `removeFromWindow(old)`, down to which of several
    /// equal values stays where (which matters only for ±0, equal but not identical): the last of the values
    /// equal to `old` leaves, and `new` goes after the values equal to it.
    private mutating func replaceInWindow(_ old: Float, with new: Float) {
        defer { windowCount -= 1 }
        // Inserting `new` after its equals and then removing the last value equal to `old` removes `new` again.
        if new == old { return }
        let count = sorted.count
        let replaced = sorted.withUnsafeMutableBufferPointer { buffer -> Bool in
            guard let base = buffer.baseAddress else { return false }
            let values = UnsafeBufferPointer(buffer)
            // `old` is in the window (no NaN ever enters: the segmenter rejects non-finite forces), so the value
            // just before its upper bound is the last one equal to it.
            let (oldBound, target) = Self.upperBounds(of: old, and: new, in: values)
            let index = oldBound - 1
            guard index >= 0, index < count, new > old ? target > index : target <= index else { return false }
            let stride = MemoryLayout<Float>.stride
            if new > old {
                // `new` sorts after `old`, so target > index: [index + 1, target) slides down one place and `new`
                // takes the last of it.
                // SAFETY: index < target <= count, so both ranges lie inside the buffer; Float is trivial, and
                // copyMemory is a memmove (the regions overlap).
                UnsafeMutableRawPointer(base + index).copyMemory(
                    from: base + index + 1, byteCount: (target - index - 1) * stride)
                base[target - 1] = new
            } else {
                // `new` sorts before `old`, so target <= index: [target, index) slides up one place and `new` takes
                // the first.
                // SAFETY: target <= index < count, as above.
                UnsafeMutableRawPointer(base + target + 1).copyMemory(
                    from: base + target, byteCount: (index - target) * stride)
                base[target] = new
            }
            return true
        }
        // Unreachable while the invariants hold; keep `sorted` the window's forces anyway.
        if !replaced { insertSorted(new) }
    }

    private mutating func removeFromWindow(_ kg: Float) {
        // `kg` is in the window, so the element just before its upper bound is equal to it (no NaN ever enters:
        // the segmenter rejects non-finite forces before they reach the history). Removing the last of equal
        // values, and inserting after them, moves only the greater ones: nothing at all on a flat rest.
        let index = sorted.withUnsafeBufferPointer { Self.upperBound(of: kg, in: $0) } - 1
        if index >= 0, index < sorted.count {
            let count = sorted.count
            // HOT PATH: one memmove. Array.remove(at:) goes through the generic replaceSubrange, several times the
            // cost per sample.
            sorted.withUnsafeMutableBufferPointer { buffer in
                guard let base = buffer.baseAddress else { return }
                // SAFETY: `index < count`, so [index + 1, count) and [index, count − 1) lie inside the buffer;
                // Float is trivial, and copyMemory is a memmove (the regions overlap).
                UnsafeMutableRawPointer(base + index).copyMemory(
                    from: base + index + 1, byteCount: (count - index - 1) * MemoryLayout<Float>.stride)
            }
            sorted.removeLast()
        }
        windowCount -= 1
    }

    /// Inserts `kg` at its sorted place. HOT PATH: one memmove, no allocation (capacity reserved in `init`).
    private mutating func insertSorted(_ kg: Float) {
        let index = sorted.withUnsafeBufferPointer { Self.upperBound(of: kg, in: $0) }
        sorted.append(kg)
        let count = sorted.count
        sorted.withUnsafeMutableBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            // SAFETY: `index ≤ count − 1`, so [index, count − 1) and [index + 1, count) lie inside the buffer;
            // Float is trivial, and copyMemory is a memmove (the regions overlap).
            UnsafeMutableRawPointer(base + index + 1).copyMemory(
                from: base + index, byteCount: (count - 1 - index) * MemoryLayout<Float>.stride)
            base[index] = kg
        }
    }

    /// The first index whose value is greater than `value` (the count when there is none).
    ///
    /// Halving with one comparison per step and no early exit, so the loop runs a fixed ⌈log₂ n⌉ times.
    private static func upperBound(of value: Float, in values: UnsafeBufferPointer<Float>) -> Int {
        // The values are sorted, so the upper bound is the number of values <= `value`. Counting them with SIMD
        // compares every value (a window holds about 130) but has no data-dependent branch: on noisy forces each
        // step of a binary search was a coin toss, and the mispredictions cost more than the search itself.
        guard let base = values.baseAddress else { return 0 }
        let count = values.count
        let probe = SIMD8<Float>(repeating: value)
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
            if base[index] <= value { total &+= 1 }
            index &+= 1
        }
        return total
    }

    /// `upperBound` of two values in one pass over the window (the loads and the loop are shared).
    private static func upperBounds(
        of first: Float, and second: Float, in values: UnsafeBufferPointer<Float>
    ) -> (Int, Int) {
        guard let base = values.baseAddress else { return (0, 0) }
        let count = values.count
        let firstProbe = SIMD8<Float>(repeating: first)
        let secondProbe = SIMD8<Float>(repeating: second)
        var firstCounts = SIMD8<Int32>()
        var secondCounts = SIMD8<Int32>()
        var index = 0
        let raw = UnsafeRawPointer(base)
        while index &+ 8 <= count {
            let chunk = raw.loadUnaligned(fromByteOffset: index &* 4, as: SIMD8<Float>.self)
            firstCounts &-= unsafeBitCast(chunk .<= firstProbe, to: SIMD8<Int32>.self)
            secondCounts &-= unsafeBitCast(chunk .<= secondProbe, to: SIMD8<Int32>.self)
            index &+= 8
        }
        var firstTotal = Int(firstCounts.wrappedSum())
        var secondTotal = Int(secondCounts.wrappedSum())
        while index < count {
            if base[index] <= first { firstTotal &+= 1 }
            if base[index] <= second { secondTotal &+= 1 }
            index &+= 1
        }
        return (firstTotal, secondTotal)
    }
}
