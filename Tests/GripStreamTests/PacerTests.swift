import Testing
@testable import GripStream

@Suite("Pacer")
struct PacerTests {
    @Test("an event is due at its capture time over the speed; in bursts, at the next multiple of the interval")
    func dueTimes() {
        let burst: UInt64 = 40_000_000
        // 80 Hz notifications at speed 1: 0, 12.5, 25, 37.5, 50 ms, ...
        let captureMicros: [Int64] = [0, 12_500, 25_000, 37_500, 40_000, 50_000, 80_001]
        #expect(captureMicros.map { Pacer.dueNanos(afterCaptureMicros: $0, factor: 1, burstNanos: nil) }
            == [0, 12_500_000, 25_000_000, 37_500_000, 40_000_000, 50_000_000, 80_001_000])
        // In bursts the events of one interval go out together at its end; one on a boundary is not held back.
        #expect(captureMicros.map { Pacer.dueNanos(afterCaptureMicros: $0, factor: 1, burstNanos: burst) }
            == [0, 40_000_000, 40_000_000, 40_000_000, 40_000_000, 80_000_000, 120_000_000])
        // At speed 10 a 40 ms burst holds 400 ms of capture.
        #expect(Pacer.dueNanos(afterCaptureMicros: 399_000, factor: 10, burstNanos: burst) == 40_000_000)
        #expect(Pacer.dueNanos(afterCaptureMicros: 401_000, factor: 10, burstNanos: burst) == 80_000_000)
        // A capture whose clock steps back never makes an event due before the first.
        #expect(Pacer.dueNanos(afterCaptureMicros: -5_000, factor: 1, burstNanos: burst) == 0)
    }
}
