import Foundation
import Testing

@testable import GripStore

/// Where a test's store lives: store tests run on both.
enum StoreKind: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case memory
    case file

    var testDescription: String { rawValue }
}

/// A store in a fresh temporary directory (or in memory), removed when the fixture is released.
final class StoreFixture {
    let directory: URL
    let path: String
    let store: RecordingStore

    init(_ kind: StoreKind, owner: ProcessOwner = .current) throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("griptrack-store-tests-\(UUID().uuidString)", isDirectory: true)
        path = directory.appendingPathComponent("griptrack.db").path
        switch kind {
        case .memory: store = try RecordingStore(inMemoryWith: owner)
        case .file: store = try RecordingStore(path: path, owner: owner)
        }
    }

    deinit {
        try? FileManager.default.removeItem(at: directory)
    }
}

enum Fixtures {
    /// The fixed reference time every test date is built from (2026-03-01 09:00:00 UTC).
    static let reference = Date(timeIntervalSince1970: 1_772_355_600)

    static func date(minutes: Int) -> Date {
        reference.addingTimeInterval(TimeInterval(minutes * 60))
    }

    static func draft(minutes: Int = 0, label: String? = nil) -> RecordingDraft {
        RecordingDraft(
            uuid: UUID(), startedAt: date(minutes: minutes), device: "F4:12:FA:01:02:03", profile: "Tindeq Progressor",
            hand: .left, label: label
        )
    }

    /// The free plan's admission policy, as the entitlement resolver will phrase it.
    static func freePlan(limit: Int = 5) -> (StoredCount) -> AdmissionDecision {
        { count in
            count.recordings < limit
                ? .admit
                : .refuse(reason: StoreCrashChildProtocol.refusal(limit: limit, stored: count.recordings))
        }
    }

    static func admitAll(_: StoredCount) -> AdmissionDecision { .admit }

    /// A process that does not exist (above Linux's pid_max), as the owner of an abandoned recording.
    static let deadOwner = ProcessOwner(token: "pid=2147483646")

    /// `count` samples at `hertz`, starting at `startMicros`, with force in a plausible range.
    static func samples(count: Int, hertz: Int64 = 80, startMicros: Int64 = 1_000_000) -> [StoredSample] {
        (0..<count).map { index in
            StoredSample(
                micros: startMicros + Int64(index) * 1_000_000 / hertz,
                kilograms: 20 + 15 * Float(sin(Double(index) / 40))
            )
        }
    }

    static let effort = StoredEffort(
        index: 0, startMicros: 1_250_000, endMicros: 4_250_000, peakKilograms: 34.75, meanKilograms: 27.5,
        durationMicros: 3_000_000, timeToPeakMicros: 812_500, rfdKilogramsPerSecond: 61.25,
        impulseKilogramSeconds: 82.5, baselineKilograms: 0.25, isOpen: false
    )
}

/// What the child process and the tests agree on (the child is a separate executable; this mirrors it).
enum StoreCrashChildProtocol {
    static func kilograms(_ index: Int) -> Float {
        Float(index % 4001) * 0.0137 - 3.5
    }

    static func refusal(limit: Int, stored: Int) -> String {
        "Not saved: the free plan keeps \(limit) recordings, \(stored) are stored."
    }
}
