/// Trends of test figures per athlete × hand × grip × protocol (`docs/metrics.md`, "Trends"; Pro): for each of MVC,
/// MVC-7, critical force and RFD, the tests in time order, the least-squares slope per week, and the change since
/// the first and since the previous test.
///
/// Pure: the caller computes each recording's figures (the same functions `show` uses) and passes its start as
/// seconds on any fixed time base (Unix seconds); nothing here reads a clock or a calendar.
public struct TrainingTrends: Sendable, Equatable {
    /// The figures followed.
    public enum Metric: String, Sendable, CaseIterable {
        /// The highest effort peak (kg).
        case mvc
        /// The best 7 s mean (kg).
        case mvc7
        /// Critical force of a cf test (kg).
        case cf
        /// The best RFD 20–80 % (kg/s).
        case rfd

        /// kg or kg/s.
        public var unit: String { self == .rfd ? "kg/s" : "kg" }
    }

    /// Who, which hand, which grip and which protocol: tests compare only within one.
    public struct Key: Sendable, Hashable {
        /// Athlete, grip and protocol as typed (nil: not said); they compare without case, as `list` filters.
        public var athlete: String?
        public var hand: Hand?
        public var grip: String?
        public var protocolNotation: String?

        /// - Parameters: See the properties.
        public init(athlete: String?, hand: Hand?, grip: String?, protocolNotation: String?) {
            self.athlete = athlete
            self.hand = hand
            self.grip = grip
            self.protocolNotation = protocolNotation
        }

        /// What groups: the same words in any case are one athlete, grip or protocol.
        var folded: [String?] {
            [athlete?.lowercased(), hand?.rawValue, grip?.lowercased(), protocolNotation?.lowercased()]
        }
    }

    /// One recording's figures.
    public struct Test: Sendable, Equatable {
        /// The recording's id, carried to the output.
        public var id: Int64
        /// Its start (seconds on the caller's time base).
        public var startSeconds: Double
        /// Its group.
        public var key: Key
        /// The figures it has (a metric absent where the recording does not define it).
        public var values: [Metric: Double]

        /// - Parameters: See the properties.
        public init(id: Int64, startSeconds: Double, key: Key, values: [Metric: Double]) {
            self.id = id
            self.startSeconds = startSeconds
            self.key = key
            self.values = values
        }
    }

    /// One figure's tests over time within a group.
    public struct Series: Sendable, Equatable {
        /// One test's value.
        public struct Point: Sendable, Equatable {
            public var id: Int64
            public var startSeconds: Double
            public var value: Double
        }

        public var metric: Metric
        /// In time order (ties by id).
        public var points: [Point]
        /// Least-squares slope of value against start time, per week; nil when the tests span less than a day
        /// (``LeastSquares/weeklySlope(_:)``).
        public var slopePerWeek: Double?
        /// Latest − first; nil with one test.
        public var changeSinceFirst: Double?
        /// Latest − the test before it; nil with one test.
        public var changeSincePrevious: Double?
    }

    /// One athlete × hand × grip × protocol.
    public struct Group: Sendable, Equatable {
        /// As the group's earliest test spells it.
        public var key: Key
        /// Tests in the group.
        public var tests: Int
        /// The figures with at least one value, in ``Metric`` order.
        public var series: [Series]
    }

    /// The groups, ordered by athlete, hand, grip and protocol (not said last).
    public var groups: [Group]

    /// - Parameter tests: In any order.
    public init(_ tests: [Test]) {
        var byKey: [[String?]: [Test]] = [:]
        for test in tests { byKey[test.key.folded, default: []].append(test) }
        groups = byKey.values.map { members in
            let ordered = members.sorted { ($0.startSeconds, $0.id) < ($1.startSeconds, $1.id) }
            let series = Metric.allCases.compactMap { metric -> Series? in
                let points = ordered.compactMap { test in
                    test.values[metric].map { Series.Point(id: test.id, startSeconds: test.startSeconds, value: $0) }
                }
                return points.isEmpty ? nil : Self.series(metric, points)
            }
            return Group(key: ordered[0].key, tests: ordered.count, series: series)
        }
        .sorted { Self.order($0.key) < Self.order($1.key) }
    }

    static func series(_ metric: Metric, _ points: [Series.Point]) -> Series {
        let count = points.count
        return Series(
            metric: metric, points: points,
            slopePerWeek: LeastSquares.weeklySlope(points.map { (seconds: $0.startSeconds, value: $0.value) }),
            changeSinceFirst: count >= 2 ? points[count - 1].value - points[0].value : nil,
            changeSincePrevious: count >= 2 ? points[count - 1].value - points[count - 2].value : nil)
    }

    /// Sorts unsaid fields after said ones (`~` sorts after letters), then by the words.
    private static func order(_ key: Key) -> String {
        key.folded.map { $0 ?? "~" }.joined(separator: "\u{1}")
    }
}
