import Foundation
import GripEntitlements
import GripStore
import Testing

@testable import GripDaemon

@Suite("Recorder parts")
struct RecorderPartsTests {
    static func sample(_ micros: Int64) -> StoredSample { StoredSample(micros: micros, kilograms: Float(micros) / 1000) }

    @Test("the pre-roll window keeps the last retention span of stream time and hands out samples from a start")
    func windowKeepsRetentionSpan() {
        var window = SampleWindow(retentionMicros: 1_000, capacity: 100)
        for micros in stride(from: Int64(0), through: 5_000, by: 100) { window.append(Self.sample(micros)) }
        #expect(window.oldest?.micros == 4_000)
        #expect(window.count == 11)
        #expect(window.samples(from: 4_450).map(\.micros) == [4_500, 4_600, 4_700, 4_800, 4_900, 5_000])
        #expect(window.samples(from: 0).map(\.micros).first == 4_000)
        #expect(window.samples(from: 6_000).isEmpty)
    }

    @Test("the pre-roll window never holds more than its capacity, however dense the stream")
    func windowIsBoundedByCount() {
        var window = SampleWindow(retentionMicros: 1_000_000_000, capacity: 64)
        for micros in Int64(0)..<10_000 { window.append(Self.sample(micros)) }
        #expect(window.count == 64)
        #expect(window.oldest?.micros == Int64(9_936))
        #expect(Array(window.samples(from: 0)) == (10_000 - 64..<10_000).map { Self.sample(Int64($0)) })
        window.removeAll()
        #expect(window.count == 0)
        #expect(window.oldest == nil)
    }

    static let client = ClientReference(id: 7, pid: 123, uid: 1000)
    static let now = Date(timeIntervalSince1970: 1_790_000_000)  // 2026-09-21

    static func parse(_ name: String, hand: String? = nil, label: String? = nil, save: Bool? = nil, action: String? = nil,
                      note: String? = nil, expires: String? = nil) -> Result<RecorderRequest, RequestProblem> {
        RecorderRequestParser.parse(
            class: name, hand: hand, label: label, save: save, action: action, note: note, expires: expires,
            client: client, now: now)
    }

    @Test("RECORD takes hand left/right/both, a label up to 200 bytes, and saves unless save is false")
    func recordFields() {
        guard case .success(.record(_, let hand, let label, let save)) = Self.parse("RECORD", hand: "left", label: "warm-up")
        else { Issue.record("RECORD was not accepted"); return }
        #expect(hand == .left && label == "warm-up" && save)
        guard case .success(.record(_, nil, nil, false)) = Self.parse("RECORD", save: false) else {
            Issue.record("RECORD save:false was not accepted"); return
        }
        #expect(Self.parse("RECORD", label: String(repeating: "é", count: 100)).isSuccess)  // 200 bytes
        #expect(Self.parse("RECORD", label: String(repeating: "é", count: 101)).problem?.contains("202 bytes") == true)
        guard case .success(.record(_, .both, nil, true)) = Self.parse("RECORD", hand: "both") else {
            Issue.record("RECORD hand both was not accepted"); return
        }
        #expect(Self.parse("RECORD", hand: "middle").problem
            == "hand must be \"left\", \"right\" or \"both\", got \"middle\"")
    }

    // A NUL reached the store, which kept only what came before it ("a\0b" was stored as "a").
    @Test("RECORD refuses a label with a control character instead of storing part of it", arguments: [
        ("a\u{0}b", "label has a control character (U+0000) at character 2; a label is one line of text"),
        ("left\nright", "label has a control character (U+000A) at character 5; a label is one line of text"),
        ("\u{1B}[2J", "label has a control character (U+001B) at character 1; a label is one line of text"),
    ])
    func recordRefusesControlCharacters(label: String, problem: String) {
        #expect(Self.parse("RECORD", label: label).problem == problem)
    }

    @Test("PRO grant refuses a day the calendar does not have instead of rolling it into the next month",
          arguments: ["2027-02-30", "2027-02-29T12:00:00Z", "2027-13-01", "2027-04-31", "2027-00-10"])
    func proRefusesImpossibleDays(expires: String) {
        #expect(Self.parse("PRO", action: "grant", expires: expires).problem?.hasPrefix("expires must be a date") == true)
        #expect(ManualOverride.expiry(from: expires) == nil)
    }

    @Test("a leap day and an ISO 8601 time with an offset are still read")
    func leapDayAndOffsetAreRead() {
        #expect(ManualOverride.expiry(from: "2028-02-29") == Date(timeIntervalSince1970: 1_835_395_200))
        #expect(ManualOverride.expiry(from: "2027-03-01T01:00:00+01:00") == Date(timeIntervalSince1970: 1_803_859_200))
    }

    @Test("PRO grant reads a day or an ISO 8601 time and refuses past or unreadable expiries and unknown actions")
    func proFields() {
        guard case .success(.pro(_, .grant(let note, let expires))) = Self.parse(
            "PRO", action: "grant", note: "PT partner", expires: "2027-03-01")
        else { Issue.record("PRO grant was not accepted"); return }
        #expect(note == "PT partner")
        #expect(expires == Date(timeIntervalSince1970: 1_803_859_200))  // 2027-03-01T00:00:00Z
        guard case .success(.pro(_, .grant(nil, let instant))) = Self.parse(
            "PRO", action: "grant", expires: "2027-03-01T12:00:00Z")
        else { Issue.record("an ISO 8601 expiry was not accepted"); return }
        #expect(instant == Date(timeIntervalSince1970: 1_803_902_400))
        guard case .success(.pro(_, .status)) = Self.parse("PRO") else { Issue.record("PRO defaults to status"); return }
        guard case .success(.pro(_, .revoke)) = Self.parse("PRO", action: "revoke") else { Issue.record("revoke"); return }
        #expect(Self.parse("PRO", action: "grant", expires: "2020-01-01").problem
            == "expires 2020-01-01 is in the past; give a later date")
        #expect(Self.parse("PRO", action: "grant", expires: "soon").problem?.hasPrefix("expires must be a date") == true)
        #expect(Self.parse("PRO", action: "upgrade").problem == "unknown PRO action \"upgrade\"; expected status, grant or revoke")
    }
}

extension Result where Failure == RequestProblem {
    var isSuccess: Bool { if case .success = self { return true } else { return false } }
    var problem: String? { if case .failure(let problem) = self { return problem.message } else { return nil } }
}
