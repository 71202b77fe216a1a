import GripWire

/// How many notification frames the pipeline saw and what became of each.
///
/// Fixed fields rather than a dictionary so counting stays allocation-free on the hot path.
public struct FrameCounters: Sendable, Equatable {
    /// Notifications that reached the consumer (decoded + malformed).
    public internal(set) var total = 0
    /// Frames that decoded into samples or a device message.
    public internal(set) var decoded = 0
    /// Notifications the producer dropped because the ring was full (live sources only).
    public internal(set) var dropped = 0
    private var rejections = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)

    public init() {}

    /// Rejected frames with this reason.
    public subscript(reason: FrameRejection) -> Int {
        get {
            switch reason {
            case .short: rejections.0
            case .lengthMismatch: rejections.1
            case .notMultipleOf8: rejections.2
            case .unknownCode: rejections.3
            case .nonFinite: rejections.4
            case .duplicate: rejections.5
            case .wrongHandle: rejections.6
            case .outOfRange: rejections.7
            case .implausibleStep: rejections.8
            case .timeJump: rejections.9
            case .badChecksum: rejections.10
            case .unframed: rejections.11
            case .uncalibrated: rejections.12
            }
        }
        set {
            switch reason {
            case .short: rejections.0 = newValue
            case .lengthMismatch: rejections.1 = newValue
            case .notMultipleOf8: rejections.2 = newValue
            case .unknownCode: rejections.3 = newValue
            case .nonFinite: rejections.4 = newValue
            case .duplicate: rejections.5 = newValue
            case .wrongHandle: rejections.6 = newValue
            case .outOfRange: rejections.7 = newValue
            case .implausibleStep: rejections.8 = newValue
            case .timeJump: rejections.9 = newValue
            case .badChecksum: rejections.10 = newValue
            case .unframed: rejections.11 = newValue
            case .uncalibrated: rejections.12 = newValue
            }
        }
    }

    /// All rejected frames.
    public var malformed: Int { FrameRejection.allCases.reduce(0) { $0 + self[$1] } }

    /// Non-zero rejection counts by reason (the `frames.malformed` object of the replay JSON).
    public var malformedByReason: [FrameRejection: Int] {
        Dictionary(uniqueKeysWithValues: FrameRejection.allCases.compactMap { self[$0] > 0 ? ($0, self[$0]) : nil })
    }

    mutating func countRejection(_ reason: FrameRejection) {
        total += 1
        self[reason] += 1
    }

    mutating func countDecoded() {
        total += 1
        decoded += 1
    }

    mutating func addDropped(_ count: Int) { dropped += count }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.total == rhs.total && lhs.decoded == rhs.decoded && lhs.dropped == rhs.dropped
            && FrameRejection.allCases.allSatisfy { lhs[$0] == rhs[$0] }
    }
}
