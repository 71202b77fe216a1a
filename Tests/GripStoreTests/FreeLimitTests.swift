import Foundation
import Testing

@testable import GripStore

@Suite("Free-tier limit", .serialized)
struct FreeLimitTests {
    @Test("the sixth recording is refused with the policy's text, verbatim", arguments: StoreKind.allCases)
    func sixthIsRefused(kind: StoreKind) throws {
        let fixture = try StoreFixture(kind)
        let store = fixture.store
        var seen: [Int] = []
        for minute in 0..<5 {
            _ = try store.beginRecording(Fixtures.draft(minutes: minute)) { count in
                seen.append(count.recordings)
                return Fixtures.freePlan()(count)
            }
        }
        #expect(seen == [0, 1, 2, 3, 4])
        let expected = "Not saved: the free plan keeps 5 recordings, 5 are stored."
        #expect(throws: GripStoreError.refused(reason: expected, storedRecordings: 5)) {
            try store.beginRecording(Fixtures.draft(minutes: 9), admission: Fixtures.freePlan())
        }
        #expect(GripStoreError.refused(reason: expected, storedRecordings: 5).description == expected)
        #expect(try store.recordingCount() == 5)
    }

    @Test("deleting a recording frees its slot", arguments: StoreKind.allCases)
    func deleteFreesSlot(kind: StoreKind) throws {
        let fixture = try StoreFixture(kind)
        let store = fixture.store
        let ids = try (0..<5).map { try store.beginRecording(Fixtures.draft(minutes: $0), admission: Fixtures.freePlan()) }
        #expect(throws: GripStoreError.self) {
            try store.beginRecording(Fixtures.draft(minutes: 9), admission: Fixtures.freePlan())
        }
        // Finished recordings and abandoned ones count the same as ones in progress; any deleted one frees a slot.
        try store.finishRecording(
            ids[0], summary: RecordingSummaryValues(endedAt: Fixtures.date(minutes: 1), maxKilograms: nil, averageKilograms: nil),
            efforts: [])
        #expect(try store.delete(ids[0]))
        let next = try store.beginRecording(Fixtures.draft(minutes: 9), admission: Fixtures.freePlan())
        #expect(next > ids[4])
        #expect(try store.recordingCount() == 5)
    }

    @Test("losing Pro deletes nothing: a free history shows the newest 5 and counts the rest", arguments: StoreKind.allCases)
    func freeHistoryHidesOlder(kind: StoreKind) throws {
        let fixture = try StoreFixture(kind)
        let store = fixture.store
        // Seven recordings stored while Pro; one started earlier than its id suggests (a replayed old capture).
        var ids: [Int: RecordingID] = [:]
        for minute in [10, 20, 30, 5, 40, 50, 60] {
            ids[minute] = try store.beginRecording(Fixtures.draft(minutes: minute, label: "m\(minute)"), admission: Fixtures.admitAll)
        }
        let free = try store.listRecordings(limit: 5)
        #expect(free.visible.map(\.label) == ["m60", "m50", "m40", "m30", "m20"])
        #expect(free.hiddenCount == 2)
        let all = try store.listRecordings(limit: nil)
        #expect(all.visible.map(\.label) == ["m60", "m50", "m40", "m30", "m20", "m10", "m5"])
        #expect(all.hiddenCount == 0)
        #expect(try store.recordingCount() == 7)
        // Free again: nothing more is stored until enough are deleted.
        #expect(throws: GripStoreError.refused(reason: StoreCrashChildProtocol.refusal(limit: 5, stored: 7), storedRecordings: 7)) {
            try store.beginRecording(Fixtures.draft(minutes: 70), admission: Fixtures.freePlan())
        }
        #expect(try store.listRecordings(limit: 0) == RecordingList(visible: [], hiddenCount: 7))
    }

    @Test("processes racing for the last free slot: exactly one wins, the others get the refusal")
    func racingForLastSlot() throws {
        let fixture = try StoreFixture(.file)
        for minute in 0..<4 {
            let id = try fixture.store.beginRecording(Fixtures.draft(minutes: minute), admission: Fixtures.freePlan())
            try fixture.store.finishRecording(
                id, summary: RecordingSummaryValues(endedAt: Fixtures.date(minutes: minute + 1), maxKilograms: nil, averageKilograms: nil),
                efforts: [])
        }
        let racers = try (0..<8).map { _ in try ChildProcess(["race", fixture.path, "5"]) }
        for racer in racers {
            #expect(racer.wait { $0.contains { $0.text == "ready" } }, "racer not ready: \(racer.output.map(\.text))")
        }
        for racer in racers { racer.send("go") }
        let results = racers.map { racer in (status: racer.waitForExit(), lines: racer.output.map(\.text)) }

        let winners = results.filter { $0.status == 0 }
        let losers = results.filter { $0.status == 3 }
        #expect(winners.count == 1, "results: \(results)")
        #expect(losers.count == 7, "results: \(results)")
        let refusal = "refused " + StoreCrashChildProtocol.refusal(limit: 5, stored: 5)
        #expect(losers.allSatisfy { $0.lines.last == refusal }, "results: \(results)")

        let store = try RecordingStore(path: fixture.path)
        #expect(try store.recordingCount() == 5)
        #expect(try store.checkIntegrity() == ["ok"])
        let list = try store.listRecordings(limit: 5)
        #expect(list.visible.count == 5)
        #expect(list.hiddenCount == 0)
        // The winner exited without finishing: its recording was recovered by this open and still holds the slot.
        let winnerLine = try #require(winners.first?.lines.last)
        let winner = RecordingID(rawValue: try #require(Int64(winnerLine.dropFirst("admitted ".count))))
        #expect(store.recoveredOnOpen == [winner])
    }
}
