@testable import GripAnalysis
import GripSimulator
import Testing

@Suite("IdleHistory")
struct IdleHistoryTests {
    @Test("the sliding-window median equals the sorted lower median, across expiries, resets and ring overwrites")
    func medianMatchesSorting() {
        var state: UInt64 = 42
        func next() -> UInt64 {  // SplitMix64
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        var history = IdleHistory(capacity: 64)
        var all: [ForceSample] = []
        var windowStart = 0  // index into `all` of the first sample since the last reset
        var since: Int64 = 0
        for index in 0..<20_000 {
            if next() % 500 == 0 {
                history.resetWindow()
                windowStart = all.count
            }
            // Few distinct values so that duplicates are common.
            let kg = Float(next() % 9) * 0.25 - 1
            history.append(micros: Int64(index) * 10, kilograms: kg)
            all.append(ForceSample(micros: Int64(index) * 10, kilograms: kg))
            // `since` never decreases; sometimes it jumps ahead, sometimes it lags far behind the ring.
            since = max(since, Int64(index) * 10 - Int64(next() % 800))
            let window = all[windowStart...].suffix(64).filter { $0.micros >= since }.map(\.kilograms).sorted()
            let expected = window.isEmpty ? nil : window[(window.count - 1) / 2]
            if history.median(since: since) != expected {
                Issue.record("median mismatch at \(index): \(String(describing: expected))")
                return
            }
        }
        #expect(history.count == 64)
    }
}
