@testable import GripAnalysis
import Testing

@Suite("IdleHistory")
struct IdleHistoryTests {
    /// The window as a sorted array, the plain way: a value enters after its equals, and the last of its equals
    /// leaves. Its lower median, sign included, is what the baseline must be.
    private struct SortedWindow {
        var samples: [ForceSample] = []
        var sorted: [Float] = []

        mutating func append(_ sample: ForceSample, capacity: Int) {
            if samples.count == capacity { removeOldest() }
            samples.append(sample)
            sorted.insert(sample.kilograms, at: sorted.firstIndex { $0 > sample.kilograms } ?? sorted.count)
        }

        mutating func trim(since: Int64) {
            while let oldest = samples.first, oldest.micros < since { removeOldest() }
        }

        mutating func removeOldest() {
            let kg = samples.removeFirst().kilograms
            sorted.remove(at: sorted.lastIndex { $0 == kg }!)
        }

        var median: Float? { sorted.isEmpty ? nil : sorted[(sorted.count - 1) / 2] }
    }

    @Test("the window's median, sign included, its minimum and the on-level question match a sorted window, across expiries, resets and ring overwrites")
    func medianMatchesSortedWindow() {
        var state: UInt64 = 42
        func next() -> UInt64 {  // SplitMix64
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        let capacity = 64
        var history = IdleHistory(capacity: capacity)
        var reference = SortedWindow()
        var since: Int64 = 0
        var zeroMedians = 0
        for index in 0..<40_000 {
            if next() % 500 == 0 {
                history.resetWindow()
                reference = SortedWindow()
            }
            // Few distinct values so that duplicates are common, and both zeros.
            let choice = next() % 11
            let kg: Float = choice == 9 ? -0.0 : choice == 10 ? 0.0 : Float(choice) * 0.25 - 1
            let sample = ForceSample(micros: Int64(index) * 10, kilograms: kg)
            history.append(micros: sample.micros, kilograms: kg)
            reference.append(sample, capacity: capacity)
            // `since` never decreases; sometimes it jumps ahead, sometimes it lags far behind the ring.
            since = max(since, Int64(index) * 10 - Int64(next() % 800))
            history.trimWindow(since: since)
            reference.trim(since: since)
            let expected = reference.median
            let median = history.median()
            guard median?.bitPattern == expected?.bitPattern else {
                Issue.record("median \(String(describing: median)) at \(index), sorted window: \(String(describing: expected))")
                return
            }
            if expected == 0 { zeroMedians += 1 }
            guard history.windowMinimum == reference.sorted.first else {
                Issue.record("minimum \(String(describing: history.windowMinimum)) at \(index), sorted window: \(reference.sorted)")
                return
            }
            let level = Float(Int(next() % 13) - 6) * 0.125
            guard history.median(isAtMost: level) == (expected.map { $0 <= level } ?? false) else {
                Issue.record("median(isAtMost: \(level)) at \(index) disagrees with \(String(describing: expected))")
                return
            }
        }
        #expect(history.count == capacity)
        #expect(zeroMedians > 1000)
    }

    @Test("a copied history keeps its samples and median when the original goes on")
    func copiesAreIndependent() {
        var history = IdleHistory(capacity: 8)
        for index in 0..<8 { history.append(micros: Int64(index), kilograms: Float(index)) }
        let copy = history
        for index in 8..<16 { history.append(micros: Int64(index), kilograms: 100 + Float(index)) }
        #expect(copy.sample(age: 0) == ForceSample(micros: 7, kilograms: 7))
        #expect(copy.median() == 3)
        #expect(copy.windowMinimum == 0)
        #expect(history.sample(age: 0) == ForceSample(micros: 15, kilograms: 115))
        #expect(history.median() == 111)
    }
}
