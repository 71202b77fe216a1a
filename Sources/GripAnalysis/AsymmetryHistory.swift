/// Left and right sessions paired per athlete × grip, their asymmetry, and the latest judged against the person's own
/// band (`docs/metrics.md`, "Asymmetry"): what `griptrack asymmetry` prints.
///
/// A **pair** is one day's left and right of one athlete and grip: each side's figure is its best MVC that day (the
/// highest MVC among that day's recordings of that hand), and the pair's index is ``Asymmetry/index(leftKg:rightKg:)``.
/// A day with only one hand pairs with nothing. The latest pair is judged against the band of the pairs before it
/// (``Asymmetry/judge(_:history:)``: mean ± 2 SD of at least ``Asymmetry/minimumSessions`` earlier pairs).
///
/// Pure: the caller gives each recording's day as a number (days since any fixed day, in the person's time zone);
/// nothing here reads a clock or a calendar.
public struct AsymmetryHistory: Sendable, Equatable {
    /// One recording of one hand.
    public struct Session: Sendable, Equatable {
        /// The recording's id, carried to the output.
        public var id: Int64
        /// Its day (the caller's day numbers: consecutive integers, one per calendar day).
        public var day: Int
        /// Its start (seconds on the caller's time base): orders a day's recordings.
        public var startSeconds: Double
        /// Athlete and grip as typed (nil: not said); they compare without case, as `list` filters them.
        public var athlete: String?
        public var grip: String?
        /// Left or right (a recording of both hands, or of no hand said, pairs with nothing: leave it out).
        public var hand: Hand
        /// The recording's MVC (kg); a session without a positive one pairs with nothing.
        public var mvcKg: Double

        /// - Parameters: See the properties.
        public init(
            id: Int64, day: Int, startSeconds: Double, athlete: String?, grip: String?, hand: Hand, mvcKg: Double
        ) {
            self.id = id
            self.day = day
            self.startSeconds = startSeconds
            self.athlete = athlete
            self.grip = grip
            self.hand = hand
            self.mvcKg = mvcKg
        }
    }

    /// One day's left and right.
    public struct Pair: Sendable, Equatable {
        public var day: Int
        /// The recordings whose MVC each side takes (the day's best of that hand).
        public var leftID: Int64
        public var rightID: Int64
        public var leftKg: Double
        public var rightKg: Double
        /// `(L − R) / (L + R)`.
        public var index: Double
    }

    /// One athlete × grip.
    public struct Group: Sendable, Equatable {
        /// As the group's earliest session spells them.
        public var athlete: String?
        public var grip: String?
        /// In day order.
        public var pairs: [Pair]
        /// Left and right sessions on days without the other hand: paired with nothing.
        public var unpairedSessions: Int
        /// The latest pair against the band of the pairs before it; nil without a pair.
        public var latest: Asymmetry.Judgement?

        /// Pairs still needed before the latest can be judged (0 once it is).
        public var pairsNeeded: Int {
            guard case .tooFewSessions(let found) = latest else { return latest == nil ? Asymmetry.minimumSessions + 1 : 0 }
            return Asymmetry.minimumSessions - found
        }
    }

    /// The groups with at least one left or right session, ordered by athlete and grip (not said last).
    public var groups: [Group]

    /// - Parameter sessions: In any order; sessions of `both` hands are ignored.
    public init(_ sessions: [Session]) {
        var byKey: [[String?]: [Session]] = [:]
        for session in sessions where session.hand != .both {
            byKey[[session.athlete?.lowercased(), session.grip?.lowercased()], default: []].append(session)
        }
        groups = byKey.map { key, members in
            let ordered = members.sorted { ($0.startSeconds, $0.id) < ($1.startSeconds, $1.id) }
            var pairs: [Pair] = []
            var unpaired = 0
            let byDay = Dictionary(grouping: ordered.filter { $0.mvcKg > 0 }, by: \.day)
            for (day, today) in byDay.sorted(by: { $0.key < $1.key }) {
                // The first of the day's highest: a tie goes to the earlier recording.
                let left = Self.best(today.filter { $0.hand == .left })
                let right = Self.best(today.filter { $0.hand == .right })
                guard let left, let right, let index = Asymmetry.index(leftKg: left.mvcKg, rightKg: right.mvcKg) else {
                    unpaired += today.count
                    continue
                }
                pairs.append(
                    Pair(
                        day: day, leftID: left.id, rightID: right.id, leftKg: left.mvcKg, rightKg: right.mvcKg,
                        index: index))
            }
            let latest = pairs.last.map { Asymmetry.judge($0.index, history: pairs.dropLast().map(\.index)) }
            return (
                order: key.map { $0 ?? "~" }.joined(separator: "\u{1}"),
                group: Group(
                    athlete: ordered[0].athlete, grip: ordered[0].grip, pairs: pairs, unpairedSessions: unpaired,
                    latest: latest)
            )
        }
        .sorted { $0.order < $1.order }
        .map(\.group)
    }

    private static func best(_ sessions: [Session]) -> Session? {
        sessions.reduce(nil) { best, session in
            guard let best else { return session }
            return session.mvcKg > best.mvcKg ? session : best
        }
    }
}
