import GripAnalysis
import Testing

/// A recording whose closed efforts peak at the given forces.
private func recording(_ peaks: [Float], start: Int64 = 0) -> Recording {
    let efforts = peaks.enumerated().map { index, peak in
        Effort(
            startMicros: start + Int64(index) * 10_000_000, endMicros: start + Int64(index) * 10_000_000 + 3_000_000,
            durationMicros: 3_000_000, peakKg: peak, peakMicros: start, meanKg: peak * 0.9, timeToPeakMicros: 0,
            rfdKgPerSecond: nil, impulseKgSeconds: 0, baselineKg: 0.5, open: false, sampleCount: 260)
    }
    return Recording(startMicros: start, endMicros: start + 60_000_000, efforts: efforts, falseStartsDropped: 0)
}

@Suite("Trends")
struct TrendsTests {
    @Test("per-day and per-week best and average, slope, changes and personal best")
    func summary() {
        // Days 0, 0, 3, 7, 14 with maxima 30, 32, 33, 35, 34.
        let trends = Trends([
            .init(day: 7, recording: recording([35, 31])),
            .init(day: 0, recording: recording([30, 28])),
            .init(day: 0, recording: recording([32], start: 100_000_000)),
            .init(day: 3, recording: recording([33])),
            .init(day: 14, recording: recording([34])),
            .init(day: 20, recording: Recording(startMicros: 0, endMicros: 1, efforts: [], falseStartsDropped: 0)),
        ])
        #expect(trends.days.map(\.key) == [0, 3, 7, 14])
        #expect(trends.days.map(\.bestKg) == [32, 33, 35, 34])
        #expect(trends.days[0].averageKg == 30)  // (30 + 28 + 32) / 3
        #expect(trends.days[0].recordings == 2)
        #expect(trends.weeks.map(\.key) == [0, 1, 2])
        #expect(trends.weeks.map(\.bestKg) == [33, 35, 34])
        #expect(trends.personalBestKg == 35 && trends.personalBestDay == 7)
        #expect(trends.changeFromFirstKg == 4)  // 34 − 30
        #expect(trends.changeFromPreviousKg == -1)  // 34 − 35
        // x = 0, 0, 3, 7, 14 (mean 4.8); y = 30, 32, 33, 35, 34 (mean 32.8):
        // Sxy = 13.44 + 3.84 − 0.36 + 4.84 + 11.04 = 32.8; Sxx = 23.04·2 + 3.24 + 4.84 + 84.64 = 138.8.
        #expect(abs((trends.slopeKgPerWeek ?? 0) - 32.8 / 138.8 * 7) < 1e-9)
    }

    @Test("weeks start on the caller's week-start day, also before day 0")
    func weekStart() {
        let trends = Trends(
            [.init(day: -1, recording: recording([20])), .init(day: 2, recording: recording([21]))], weekStartDay: 2)
        #expect(trends.weeks.map(\.key) == [-1, 0])
    }

    @Test("no or one scored recording gives no slope or change")
    func tooFew() {
        #expect(Trends([]).personalBestKg == nil)
        let one = Trends([.init(day: 5, recording: recording([25]))])
        #expect(one.slopeKgPerWeek == nil && one.changeFromFirstKg == nil && one.personalBestKg == 25)
    }
}
