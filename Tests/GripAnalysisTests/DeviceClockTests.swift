import GripAnalysis
import GripWire
import Testing

@Suite("DeviceClock")
struct DeviceClockTests {
    @Test("the first sample is placed at its own device time")
    func firstSampleIsOrigin() {
        var clock = DeviceClock()
        #expect(clock.place(123_456, hostMicros: 9_000_000_000) == 123_456)
        #expect(clock.place(134_856, hostMicros: 9_000_011_000) == 134_856)
        #expect(clock.epoch == 0 && clock.wraps == 0)
    }

    @Test("a step across the 2^32 boundary unwraps by 2^32")
    func wrapAtExactBoundary() {
        var clock = DeviceClock()
        let maxTick = UInt32.max  // 2^32 − 1
        #expect(clock.place(maxTick - 11_400, hostMicros: 0) == 4_294_955_895)
        #expect(clock.place(maxTick, hostMicros: 11_400) == 4_294_967_295)
        // 2^32 − 1 → 0 is one microsecond forward.
        #expect(clock.place(0, hostMicros: 11_401) == 4_294_967_296)
        #expect(clock.place(11_399, hostMicros: 22_800) == 4_294_978_695)
        #expect(clock.wraps == 1)
        #expect(clock.epoch == 0)
    }

    @Test("a wrap is recognised when the forward-wrapped step is just under 10 s, a restart at 10 s")
    func wrapWindow() {
        var wrapped = DeviceClock()
        _ = wrapped.place(4_294_000_000, hostMicros: 0)
        // forward delta = 9_032_703 + 2^32 − 4_294_000_000 = 9_999_999 µs
        #expect(wrapped.place(9_032_703, hostMicros: 10_000_000) == 4_294_000_000 + 9_999_999)
        #expect(wrapped.wraps == 1 && wrapped.epoch == 0)

        var restarted = DeviceClock()
        _ = restarted.place(4_294_000_000, hostMicros: 0)
        // forward delta = exactly 10 s: not a wrap, a restart bridged by host time (7 s here).
        #expect(restarted.place(9_032_704, hostMicros: 7_000_000) == 4_294_000_000 + 7_000_000)
        #expect(restarted.wraps == 0 && restarted.epoch == 1)
    }

    @Test("after a reconnect the new epoch continues at the elapsed host time")
    func restartAfterReconnectUsesHostTime() {
        var clock = DeviceClock()
        let host0: Int64 = 1_700_000_000_000_000
        #expect(clock.place(2_000_000, hostMicros: host0) == 2_000_000)
        #expect(clock.place(2_011_400, hostMicros: host0 + 11_400) == 2_011_400)
        // Disconnect; reconnect and START after 42.5 s of host time: device time restarts near 0.
        clock.startNewEpoch()
        #expect(clock.place(15_000, hostMicros: host0 + 11_400 + 42_500_000) == 2_011_400 + 42_500_000)
        // Later samples in the new epoch follow device time.
        #expect(clock.place(26_400, hostMicros: host0 + 11_400 + 42_600_000) == 2_011_400 + 42_500_000 + 11_400)
        #expect(clock.epoch == 1 && clock.wraps == 0)
    }

    @Test("a START with a later device time than before still opens a new epoch")
    func explicitEpochEvenWhenDeviceTimeIsAhead() {
        var clock = DeviceClock()
        _ = clock.place(100, hostMicros: 0)
        clock.startNewEpoch()
        clock.startNewEpoch()  // twice before a sample: one epoch
        #expect(clock.place(5_000_000, hostMicros: 300_000) == 100 + 300_000)
        #expect(clock.epoch == 1)
    }

    @Test("an unannounced large backwards step is a restart, and host time going backwards still moves forward")
    func unannouncedRestartStaysMonotonic() {
        var clock = DeviceClock()
        _ = clock.place(600_000_000, hostMicros: 5_000_000)
        // Host clock went backwards (bad host time): the new epoch is placed 1 µs after the last sample.
        #expect(clock.place(1_000, hostMicros: 4_000_000) == 600_000_001)
        #expect(clock.place(12_400, hostMicros: 4_011_400) == 600_011_401)
        #expect(clock.epoch == 1)
    }

    @Test("a three-hour stream at Progressor timing unwraps twice and keeps exact device time")
    func threeHourStream() {
        var clock = DeviceClock()
        let start: Int64 = 500_000
        let tick: Int64 = 11_400
        let slots = 3 * 3_600 * 1_000_000 / tick  // ≈ 947k slots
        var previous = Int64.min
        var monotonic = true
        var exact = true
        for slot in 0..<slots where slot % 16 != 15 {
            let streamMicros = start + slot * tick
            let device = UInt32(truncatingIfNeeded: streamMicros)
            let placed = clock.place(device, hostMicros: streamMicros + 40_000)
            if placed < previous { monotonic = false }
            if placed != streamMicros { exact = false }
            previous = placed
        }
        #expect(monotonic)
        #expect(exact)
        #expect(clock.wraps == 2)  // 10_800 s / 4_294.967 s per wrap
        #expect(clock.epoch == 0)
    }

    @Test("placing a RawSample keeps its force and unwraps its time")
    func placesRawSamples() {
        var clock = DeviceClock()
        _ = clock.place(UInt32.max - 5_000, hostMicros: 0)
        let placed = clock.place(RawSample(deviceMicros: 6_400, kilograms: 10.5), hostMicros: 11_400)
        #expect(placed == ForceSample(micros: 4_294_967_296 + 6_400, kilograms: 10.5))
    }

    @Test("a stamp an hour ahead of the host time is rejected and the stream goes on where it was")
    func corruptedStampRejected() {
        var clock = DeviceClock()
        #expect(clock.placeChecked(1_000_000, hostMicros: 50_000_000) == 1_000_000)
        #expect(clock.placeChecked(1_100_000, hostMicros: 50_100_000) == 1_100_000)
        // A corrupted stamp: an hour ahead in device time, 0.1 s on the host.
        #expect(clock.placeChecked(3_601_200_000, hostMicros: 50_200_000) == nil)
        #expect(clock.placeChecked(1_300_000, hostMicros: 50_300_000) == 1_300_000)
        #expect(clock.epoch == 0)
    }

    @Test("a radio stall with a burst after it, or a gap with host time passing, is not a jump")
    func honestGapsAccepted() {
        var clock = DeviceClock()
        #expect(clock.placeChecked(0, hostMicros: 0) == 0)
        // 4.9 s of device time delivered at once (host time stood still): within the 5 s allowance.
        #expect(clock.placeChecked(4_900_000, hostMicros: 0) == 4_900_000)
        // A 60 s gap on both clocks (notifications lost while the device kept counting).
        #expect(clock.placeChecked(64_900_000, hostMicros: 60_000_000) == 64_900_000)
        // Host time going backwards counts as none passing.
        #expect(clock.placeChecked(65_000_000, hostMicros: 1_000) == 65_000_000)
    }

    @Test("a device clock that really jumped is accepted from its second sample, bridged by host time")
    func confirmedJumpOpensEpoch() {
        var clock = DeviceClock()
        #expect(clock.placeChecked(1_000_000, hostMicros: 10_000_000) == 1_000_000)
        #expect(clock.placeChecked(900_000_000, hostMicros: 10_100_000) == nil)
        // Continues from the rejected one: a new epoch 0.2 s of host time after the last placed sample.
        #expect(clock.placeChecked(900_100_000, hostMicros: 10_200_000) == 1_200_000)
        #expect(clock.epoch == 1)
        #expect(clock.placeChecked(900_200_000, hostMicros: 10_300_000) == 1_300_000)
    }

    @Test("after a START the first sample is never judged against the old epoch")
    func startNotJudged() {
        var clock = DeviceClock()
        #expect(clock.placeChecked(100, hostMicros: 0) == 100)
        clock.startNewEpoch()
        #expect(clock.placeChecked(4_000_000_000, hostMicros: 100_000) == 100_100)
    }
}
