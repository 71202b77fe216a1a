import Foundation
import GripSimulator
import GripReplay
import GripStream
import GripWire
import Testing

/// A device that only advertises (the WH-C06) loses its link after 10 s of silence in replay exactly as in the
/// daemon: the effort under way closes open there. Replay used to interpolate across the silence.
@Suite("Advertisement silence in replay")
struct AdvertisementSilenceReplayTests {
    /// Replays a simulated WH-C06 session; its efforts.
    static func efforts(_ steps: [ProgressorSession.Step]) throws -> [ReplayReport.EffortReport] {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("whc06-silence-\(UUID()).btsnoop")
        defer { try? FileManager.default.removeItem(at: url) }
        try Data(ProgressorSession(device: .whc06, seed: 7, steps: steps).render()).write(to: url)
        return try ReplayReport.replaying(path: url.path).recordings.flatMap(\.efforts)
    }

    /// A hang from 2 s that is still loaded when the stream stops `seconds` in.
    static func loadedUntil(_ seconds: Double, peak: Double = 15) -> ProgressorSession.Step {
        .stream(seconds: seconds, ForceProgram(baseline: 0.1, tremor: 0.2, pulls: [
            ForceProgram.Pull(start: 2, rise: 1, hold: seconds + 60, peak: peak),
        ]))
    }

    static let rest = ProgressorSession.Step.stream(seconds: 8, ForceProgram(baseline: 0.1, tremor: 0.2, pulls: []))

    @Test("a hang cut by a 13 s silence ends open where the silence ran out")
    func hangCutBySilenceIsOpen() throws {
        let efforts = try Self.efforts([Self.loadedUntil(9), .pause(seconds: 13), Self.rest])
        let effort = try #require(efforts.first)
        #expect(efforts.count == 1)
        #expect(effort.open, "the effort should end open at the lost link")
        // It ends by the last advertisement before the silence, not 13 s later when the force was next seen low.
        #expect(effort.endS - effort.startS < 8, "\(effort)")
    }

    @Test("two hangs either side of a 23 s silence are two efforts, the first open, no mean across the gap")
    func hangsEitherSideOfSilenceStayApart() throws {
        let second = ProgressorSession.Step.stream(seconds: 10, ForceProgram(baseline: 0.1, tremor: 0.2, pulls: [
            ForceProgram.Pull(start: 2, rise: 1, hold: 4, fall: 1, peak: 18),
        ]))
        let efforts = try Self.efforts([Self.loadedUntil(9), .pause(seconds: 23), second])
        try #require(efforts.count == 2, "\(efforts)")
        #expect(efforts[0].open)
        #expect(!efforts[1].open && !efforts[1].openStart)
        #expect(efforts[0].endS - efforts[0].startS < 8 && efforts[1].endS - efforts[1].startS < 8, "\(efforts)")
        #expect(abs(efforts[0].meanKg - 15) < 2 && abs(efforts[1].peakKg - 18) < 2)
    }

    @Test("advertisements closer than the silence keep the link up; the first one after it ends the old link first")
    func steadyAdvertisementsKeepTheLink() {
        var silence = AdvertisementSilence()
        #expect(silence.advertisement(at: 0) == .up)
        #expect(silence.advertisement(at: 9_999_999) == .none)
        #expect(silence.advertisement(at: 19_999_999) == .downAndUp(downAtMicros: 19_999_999))
        #expect(silence.expire(at: 29_999_998) == false)
        #expect(silence.expire(at: 29_999_999) == true)
        #expect(silence.downAtMicros == nil)
        #expect(silence.advertisement(at: 40_000_000) == .up)
    }
}
