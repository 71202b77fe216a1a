/// Progress across recordings (`docs/segmentation.md`, Pro): best and average per day and week, the least-squares slope,
/// change against the first and the previous recording, and the personal best.
///
/// Pure: the caller assigns each recording a **day key** (an integer day number in the user's calendar, e.g.
/// days since 1970-01-01 in local time), so no clock or calendar is read here. Weeks are `floor((day −
/// weekStartDay) / 7)`; pass `weekStartDay` = the key of any week's first day to choose where weeks begin.
/// A recording's score is its ``Recording/maxKg`` (open efforts excluded); recordings without one are ignored.
public struct Trends: Sendable, Equatable {
    /// One recording with the day it belongs to.
    public struct Entry: Sendable, Equatable {
        /// Caller's day number (e.g. local days since 1970-01-01).
        public var day: Int
        /// The recording.
        public var recording: Recording

        /// Creates an entry.
        ///
        /// - Parameters:
        ///   - day: Caller's day number.
        ///   - recording: The recording.
        public init(day: Int, recording: Recording) {
            self.day = day
            self.recording = recording
        }
    }

    /// Scores over one day or week.
    public struct Period: Sendable, Equatable {
        /// Day number, or week number (`floor((day − weekStartDay) / 7)`).
        public var key: Int
        /// Highest recording max in the period (kg).
        public var bestKg: Float
        /// Mean of the peaks of all non-open efforts in the period (kg).
        public var averageKg: Float
        /// Recordings with a score in the period.
        public var recordings: Int
    }

    /// Per-day scores, by ascending day.
    public var days: [Period]
    /// Per-week scores, by ascending week.
    public var weeks: [Period]
    /// Least-squares slope of recording max against time (kg/week); `nil` with fewer than two distinct days.
    public var slopeKgPerWeek: Double?
    /// Latest recording max − first recording max (kg); `nil` with fewer than two scored recordings.
    public var changeFromFirstKg: Float?
    /// Latest recording max − the one before it (kg); `nil` with fewer than two scored recordings.
    public var changeFromPreviousKg: Float?
    /// Highest recording max (kg); `nil` without scored recordings.
    public var personalBestKg: Float?
    /// Day of the first recording that reached ``personalBestKg``.
    public var personalBestDay: Int?

    /// Computes the trends.
    ///
    /// - Parameters:
    ///   - entries: Recordings with their day keys, in any order (ties keep their order, then by start time).
    ///   - weekStartDay: A day key on which weeks begin (default 0).
    public init(_ entries: [Entry], weekStartDay: Int = 0) {
        let scored = entries.enumerated()
            .filter { $0.element.recording.maxKg != nil }
            .sorted {
                ($0.element.day, $0.element.recording.startMicros, $0.offset)
                    < ($1.element.day, $1.element.recording.startMicros, $1.offset)
            }
            .map(\.element)
        days = Self.periods(scored) { $0.day }
        weeks = Self.periods(scored) { Self.floorDivide($0.day - weekStartDay, 7) }

        let maxima = scored.map { $0.recording.maxKg ?? 0 }
        personalBestKg = maxima.max()
        personalBestDay = personalBestKg.flatMap { best in scored.first { $0.recording.maxKg == best }?.day }
        if maxima.count >= 2 {
            changeFromFirstKg = maxima[maxima.count - 1] - maxima[0]
            changeFromPreviousKg = maxima[maxima.count - 1] - maxima[maxima.count - 2]
        } else {
            changeFromFirstKg = nil
            changeFromPreviousKg = nil
        }

        // On day numbers: two distinct days are the minimum span.
        slopeKgPerWeek = LeastSquares.weeklySlope(zip(scored, maxima).map { entry, maximum in
            (seconds: Double(entry.day) * 86_400, value: Double(maximum))
        })
    }

    private static func periods(_ entries: [Entry], key: (Entry) -> Int) -> [Period] {
        var result: [Period] = []
        var peakSum = 0.0
        var peakCount = 0
        for entry in entries {
            let k = key(entry)
            let best = entry.recording.maxKg ?? 0
            if result.last?.key != k {
                if !result.isEmpty { result[result.count - 1].averageKg = Float(peakSum / Double(peakCount)) }
                result.append(Period(key: k, bestKg: best, averageKg: 0, recordings: 0))
                peakSum = 0
                peakCount = 0
            }
            result[result.count - 1].bestKg = max(result[result.count - 1].bestKg, best)
            result[result.count - 1].recordings += 1
            for effort in entry.recording.efforts where !effort.open {
                peakSum += Double(effort.peakKg)
                peakCount += 1
            }
        }
        if !result.isEmpty { result[result.count - 1].averageKg = Float(peakSum / Double(max(peakCount, 1))) }
        return result
    }

    private static func floorDivide(_ a: Int, _ b: Int) -> Int {
        let q = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
    }
}
