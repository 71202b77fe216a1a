/// A fixed-capacity ring of the most recent idle samples, with an allocation-free median.
///
/// Invariants: `micros` and `kilograms` always have `capacity` elements (allocated once in `init`); the live
/// samples are the `count` slots ending just before `head`, oldest first; times are non-decreasing.
struct IdleHistory: Sendable {
    private var micros: [Int64]
    private var kilograms: [Float]
    /// Scratch for the median's selection; capacity reserved in `init`, emptied with `keepingCapacity`.
    private var scratch: [Float]
    private(set) var count = 0
    private var head = 0
    let capacity: Int

    init(capacity: Int) {
        self.capacity = Swift.max(1, capacity)
        micros = Array(repeating: 0, count: self.capacity)
        kilograms = Array(repeating: 0, count: self.capacity)
        scratch = []
        scratch.reserveCapacity(self.capacity)
    }

    /// Appends one sample, dropping the oldest when full. HOT PATH: no allocation.
    mutating func append(micros time: Int64, kilograms kg: Float) {
        micros[head] = time
        kilograms[head] = kg
        head = head + 1 == capacity ? 0 : head + 1
        count = Swift.min(count + 1, capacity)
    }

    mutating func removeAll() {
        count = 0
        head = 0
    }

    /// The `age`-th newest sample (0 = newest).
    func sample(age: Int) -> ForceSample {
        var index = head - 1 - age
        if index < 0 { index += capacity }
        return ForceSample(micros: micros[index], kilograms: kilograms[index])
    }

    /// Median (lower median for an even count) of the samples with `micros ≥ since`; `nil` if none.
    /// HOT PATH: no allocation (selection in the reserved scratch buffer).
    mutating func median(since: Int64) -> Float? {
        scratch.removeAll(keepingCapacity: true)
        var age = 0
        while age < count {
            let sample = sample(age: age)
            if sample.micros < since { break }
            scratch.append(sample.kilograms)
            age += 1
        }
        guard !scratch.isEmpty else { return nil }
        return Self.select(&scratch, rank: (scratch.count - 1) / 2)
    }

    /// Quickselect (Hoare partition, middle pivot): the element of the given rank; reorders `values`.
    private static func select(_ values: inout [Float], rank: Int) -> Float {
        var low = 0
        var high = values.count - 1
        while low < high {
            let pivot = values[low + (high - low) / 2]
            var i = low
            var j = high
            while i <= j {
                while values[i] < pivot { i += 1 }
                while values[j] > pivot { j -= 1 }
                if i <= j {
                    let swapped = values[i]  // not swapAt: unspecialized in debug builds, it allocates
                    values[i] = values[j]
                    values[j] = swapped
                    i += 1
                    j -= 1
                }
            }
            if rank <= j {
                high = j
            } else if rank >= i {
                low = i
            } else {
                return values[rank]
            }
        }
        return values[rank]
    }
}
