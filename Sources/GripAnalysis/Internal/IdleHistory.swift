/// A fixed-capacity ring of the most recent idle samples, with a sliding-window median kept up to date as
/// samples arrive.
///
/// Why a sorted window: the baseline is the median of the idle samples of the last 1.5 s, needed for every idle
/// sample. Selecting it anew each time cost O(window) per sample and was a third of a long replay's time. The
/// window's values are instead kept sorted: a sample enters and an expired one leaves by binary search and one
/// short `memmove` (≤ a few hundred floats), and the median is read in O(1).
///
/// Invariants: `micros` and `kilograms` always have `capacity` elements (allocated once in `init`); the live
/// samples are the `count` slots ending just before `head`, oldest first; times are non-decreasing. The window is
/// the newest `windowCount` live samples, and `sorted` holds exactly their forces in ascending order.
struct IdleHistory: Sendable {
    private var micros: [Int64]
    private var kilograms: [Float]
    /// Forces of the window, ascending; capacity reserved in `init`, never grown.
    private var sorted: [Float]
    private(set) var count = 0
    private var head = 0
    private var windowCount = 0
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
        if count == capacity, windowCount == capacity {
            // The slot about to be overwritten is the window's oldest sample.
            removeFromWindow(sample(age: capacity - 1).kilograms)
        }
        micros[head] = time
        kilograms[head] = kg
        head = head + 1 == capacity ? 0 : head + 1
        count = Swift.min(count + 1, capacity)
        insertSorted(kg)
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
            removeFromWindow(oldest.kilograms)
        }
        guard windowCount > 0 else { return nil }
        return sorted[(windowCount - 1) / 2]
    }

    private mutating func removeFromWindow(_ kg: Float) {
        // `kg` is in the window, so the element just before its upper bound is equal to it (no NaN ever enters:
        // the segmenter rejects non-finite forces before they reach the history). Removing the last of equal
        // values, and inserting after them, moves only the greater ones: nothing at all on a flat rest.
        let index = Self.upperBound(of: kg, in: sorted) - 1
        if index >= 0, index < sorted.count {
            let count = sorted.count
            // HOT PATH: one memmove. Array.remove(at:) went through the generic replaceSubrange and cost several
            // times more per sample (perf, 73-minute replay).
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
        let index = Self.upperBound(of: kg, in: sorted)
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
    private static func upperBound(of value: Float, in values: [Float]) -> Int {
        var length = values.count
        guard length > 0 else { return 0 }
        var base = 0
        while length > 1 {
            let half = length / 2
            base = values[base + half] <= value ? base + half : base
            length -= half
        }
        return values[base] <= value ? base + 1 : base
    }
}
