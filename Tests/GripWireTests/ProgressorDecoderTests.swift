import GripWire
import Testing

/// The Progressor decoder's verdict on single frames: what a corrupted or impossible frame becomes.
@Suite("ProgressorDecoder")
struct ProgressorDecoderTests {
    /// A weight frame (code 0x01) holding these samples.
    private func weightFrame(_ samples: [(kg: Float, micros: UInt32)]) -> [UInt8] {
        var bytes: [UInt8] = [0x01, UInt8(8 * samples.count)]
        for sample in samples {
            withUnsafeBytes(of: sample.kg.bitPattern.littleEndian) { bytes += $0 }
            withUnsafeBytes(of: sample.micros.littleEndian) { bytes += $0 }
        }
        return bytes
    }

    private func decode(_ frames: [[UInt8]]) -> (outcomes: [FrameOutcome], samples: [RawSample]) {
        var decoder = TindeqProgressor().makeDecoder()
        var samples: [RawSample] = []
        let outcomes = frames.map { frame in
            frame.withUnsafeBytes { decoder.decode($0, hostMicros: 0) { samples.append($0) } }
        }
        return (outcomes, samples)
    }

    @Test("a weight frame yields its samples exactly, float32 for float32")
    func decodesSamples() {
        let result = decode([weightFrame([(23.368214, 1_000), (23.5, 13_500)])])
        #expect(result.outcomes == [.samples(2)])
        #expect(result.samples == [RawSample(deviceMicros: 1_000, kilograms: 23.368214),
                                   RawSample(deviceMicros: 13_500, kilograms: 23.5)])
    }

    @Test("forces a Progressor cannot measure are rejected as out_of_range and never emitted",
          arguments: [Float.greatestFiniteMagnitude, 3.4e38, -5_000, 200.5, -10.5])
    func outOfRange(kilograms: Float) {
        let result = decode([weightFrame([(1, 1_000)]), weightFrame([(1, 13_500), (kilograms, 26_000)])])
        #expect(result.outcomes == [.samples(1), .rejected(.outOfRange)])
        #expect(result.samples.count == 1)
    }

    @Test("the ends of the range are forces: −10 kg and 200 kg pass")
    func rangeEnds() {
        let result = decode([weightFrame([(-10, 1_000)]), weightFrame([(-10, 2_000_000)]),
                             weightFrame([(200, 4_000_000)])])
        #expect(result.outcomes == [.samples(1), .samples(1), .samples(1)])
    }

    @Test("NaN and infinity stay non_finite")
    func nonFinite() {
        let result = decode([weightFrame([(.nan, 1_000)]), weightFrame([(.infinity, 2_000)])])
        #expect(result.outcomes == [.rejected(.nonFinite), .rejected(.nonFinite)])
    }

    @Test("a jump inside the range no hand makes (0 → 150 kg in 12.5 ms) is implausible_step; the next sane frame passes")
    func implausibleStep() {
        let result = decode([
            weightFrame([(0.4, 1_000)]),
            weightFrame([(150, 13_500)]),
            weightFrame([(0.5, 26_000)]),
        ])
        #expect(result.outcomes == [.samples(1), .rejected(.implausibleStep), .samples(1)])
        #expect(result.samples.map(\.kilograms) == [0.4, 0.5])
    }

    @Test("a jump inside one frame is judged sample by sample")
    func stepInsideFrame() {
        let result = decode([weightFrame([(0.4, 1_000), (190, 13_500)])])
        #expect(result.outcomes == [.rejected(.implausibleStep)])
        #expect(result.samples.isEmpty)
    }

    @Test("a real release (60 kg → 0 in 25 ms) and a fast pull (0 → 40 kg in 150 ms) are forces")
    func realFastChanges() {
        let result = decode([
            weightFrame([(60, 1_000), (30, 13_500)]), weightFrame([(0.3, 26_000)]),
            weightFrame([(0.3, 38_500), (13, 88_500), (26, 138_500)]), weightFrame([(40, 188_500)]),
        ])
        #expect(result.outcomes == [.samples(2), .samples(1), .samples(3), .samples(1)])
    }

    @Test("after START the step is judged afresh: a device that restarts loaded is not a jump")
    func startForgetsPrevious() {
        var decoder = TindeqProgressor().makeDecoder()
        var count = 0
        let first = weightFrame([(0.2, 5_000_000)])
        let loaded = weightFrame([(180, 1_000)])
        _ = first.withUnsafeBytes { decoder.decode($0, hostMicros: 0) { _ in count += 1 } }
        decoder.noteCommandSent(.startMeasurement)
        let outcome = loaded.withUnsafeBytes { decoder.decode($0, hostMicros: 0) { _ in count += 1 } }
        #expect(outcome == .samples(1))
        #expect(count == 2)
    }

    @Test("a repeated notification is a duplicate")
    func duplicate() {
        let frame = weightFrame([(5, 1_000), (5.1, 13_500)])
        #expect(decode([frame, frame]).outcomes == [.samples(2), .rejected(.duplicate)])
    }
}
