import Testing

@testable import GripAnalysis

/// Grouping efforts into recordings on its own (docs/segmentation.md, "Recordings"), with hand-made efforts; the
/// segmenter's tests cover it through real signals.
@Suite("Recording grouper")
struct RecordingGrouperTests {
    static let second: Int64 = 1_000_000
    static let settings = SegmenterSettings()

    static func effort(from start: Int64, to end: Int64, peakKg: Float) -> Effort {
        Effort(
            startMicros: start, endMicros: end, durationMicros: end - start, peakKg: peakKg, peakMicros: start,
            meanKg: peakKg / 2, timeToPeakMicros: 0, rfdKgPerSecond: nil, impulseKgSeconds: 0, baselineKg: 0,
            open: false, sampleCount: 10)
    }

    @Test("an automatic recording opens at the first effort minus the pre-roll, not before the floor, and closes after the session gap at the last effort's end plus the post-roll")
    func automaticRecordingBounds() {
        var grouper = RecordingGrouper(settings: Self.settings)
        var events: [SegmentEvent] = []
        grouper.sampleAccepted(at: 1 * Self.second, effortUnderWayStart: nil) { events.append($0) }
        grouper.effortAccepted(startingAt: 2 * Self.second) { events.append($0) }
        #expect(events == [.recordingStarted(startMicros: 1 * Self.second)])  // the floor, not 0
        grouper.effortEnded(Self.effort(from: 2 * Self.second, to: 8 * Self.second, peakKg: 30))
        grouper.effortAccepted(startingAt: 20 * Self.second) { events.append($0) }
        grouper.effortEnded(Self.effort(from: 20 * Self.second, to: 25 * Self.second, peakKg: 2))  // a bump
        let gapEnds = 25 * Self.second + Self.settings.sessionGapMicros
        grouper.sampleAccepted(at: 26 * Self.second, effortUnderWayStart: nil) { events.append($0) }
        grouper.sampleAccepted(at: gapEnds - 1, effortUnderWayStart: nil) { events.append($0) }
        #expect(grouper.isOpen)
        grouper.sampleAccepted(at: gapEnds, effortUnderWayStart: nil) { events.append($0) }
        #expect(!grouper.isOpen)
        guard case .recordingEnded(let recording) = events.last else {
            Issue.record("no recordingEnded: \(events)")
            return
        }
        #expect(recording.startMicros == 1 * Self.second)
        #expect(recording.endMicros == 25 * Self.second + Self.settings.postRollMicros)
        #expect(recording.efforts.map(\.peakKg) == [30])
        #expect(recording.falseStartsDropped == 1)
        // The next recording's pre-roll reaches back to the first sample after the prospective end, not further.
        grouper.effortAccepted(startingAt: gapEnds + Self.second) { events.append($0) }
        #expect(events.last == .recordingStarted(startMicros: gapEnds - 1))
    }

    @Test("an effort that started within the gap keeps the recording open; an explicit recording never closes by the gap")
    func gapExceptions() {
        var grouper = RecordingGrouper(settings: Self.settings)
        var events: [SegmentEvent] = []
        grouper.effortAccepted(startingAt: 5 * Self.second) { events.append($0) }
        grouper.effortEnded(Self.effort(from: 5 * Self.second, to: 10 * Self.second, peakKg: 20))
        let deadline = 10 * Self.second + Self.settings.sessionGapMicros
        grouper.sampleAccepted(at: deadline + 1, effortUnderWayStart: deadline - 1) { events.append($0) }
        #expect(grouper.isOpen)
        grouper.beginExplicit(atMicros: deadline + 2) { events.append($0) }
        #expect(!grouper.isAutomatic)
        grouper.sampleAccepted(at: deadline + 100 * Self.second, effortUnderWayStart: nil) { events.append($0) }
        #expect(grouper.isOpen)
        #expect(events.count == 1)  // only the automatic start: making it explicit emits nothing
        grouper.close(lastSampleMicros: deadline + 100 * Self.second) { events.append($0) }
        guard case .recordingEnded(let recording) = events.last else {
            Issue.record("no recordingEnded: \(events)")
            return
        }
        #expect(recording.endMicros == deadline + 100 * Self.second)  // explicit: at the last sample
    }
}
