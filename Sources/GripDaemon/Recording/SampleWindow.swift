import GripStore

/// The recent samples the recorder keeps while no stored recording takes them: a recording starts before the
/// event that announces it (its first effort's start minus the segmenter's pre-roll, announced only once the
/// effort is accepted), so its first samples come from here.
///
/// Bounded twice: by stream time (`retentionMicros` behind the newest sample) and by count (`capacity`), so a
/// device that streams for hours costs a fixed amount of memory.
struct SampleWindow {
    let retentionMicros: Int64
    let capacity: Int
    private var samples: [StoredSample] = []
    private var start = 0

    init(retentionMicros: Int64, capacity: Int) {
        precondition(retentionMicros > 0 && capacity > 0, "a sample window must keep something")
        self.retentionMicros = retentionMicros
        self.capacity = capacity
        samples.reserveCapacity(capacity)
    }

    /// Samples held.
    var count: Int { samples.count - start }

    /// The oldest sample held.
    var oldest: StoredSample? { start < samples.count ? samples[start] : nil }

    /// Appends a sample (stream order) and forgets what falls out of the window.
    mutating func append(_ sample: StoredSample) {
        samples.append(sample)
        let horizon = sample.micros.subtractingReportingOverflow(retentionMicros)
        while start < samples.count - 1,
            samples.count - start > capacity || (!horizon.overflow && samples[start].micros < horizon.partialValue)
        {
            start += 1
        }
        if start >= capacity {
            samples.removeFirst(start)
            start = 0
        }
    }

    /// The samples at or after `micros`, oldest first.
    func samples(from micros: Int64) -> ArraySlice<StoredSample> {
        var first = samples.count
        while first > start && samples[first - 1].micros >= micros { first -= 1 }
        return samples[first...]
    }

    /// Forgets everything (a new stream starts).
    mutating func removeAll() {
        samples.removeAll(keepingCapacity: true)
        start = 0
    }
}
