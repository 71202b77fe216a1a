import GripAnalysis
import Testing

@Suite("Protocol cues: countdown, hang, rest")
struct ProtocolCueTests {
    @Test("repeaters 2x 7:3: a 5 s countdown, then hang 7 s, rest 3 s, hang 7 s, done; the bell marks each change")
    func repeatersCues() throws {
        let training = try ProtocolNotation.parse("repeaters 2x 7:3")
        let plan = training.plan()
        func cue(_ seconds: Double) -> ProtocolCue { ProtocolCue.at(Int64(seconds * 1_000_000), of: plan, training: training) }
        #expect(cue(0) == .countdown(remainingMicros: 5_000_000, firstHand: .right))
        #expect(cue(6) == .hang(rep: plan[0], remainingMicros: 6_000_000))
        #expect(cue(13) == .rest(next: plan[1], remainingMicros: 2_000_000))
        #expect(cue(15.5) == .hang(rep: plan[1], remainingMicros: 6_500_000))
        #expect(cue(22) == .done)
        #expect(cue(4.9).ringsBell(before: cue(5)))
        #expect(cue(11.9).ringsBell(before: cue(12)))
        #expect(cue(14.9).ringsBell(before: cue(15)))
        #expect(cue(21.9).ringsBell(before: cue(22)))
        #expect(!cue(6).ringsBell(before: cue(7)))
    }

    @Test("max … alternate names the next hand in the rest; an endurance hold stays a hang")
    func nextHandAndEndurance() throws {
        let max = try ProtocolNotation.parse("max 2x 10s rest 60s alternate")
        let plan = max.plan(firstHand: .left)
        guard case .rest(let next, _) = ProtocolCue.at(20_000_000, of: plan, training: max) else {
            Issue.record("not a rest")
            return
        }
        #expect(next.hand == .right && next.number == 2)
        let endurance = try #require(BuiltInProtocols.named("endurance"))
        let hold = ProtocolCue.at(600_000_000, of: endurance.plan(), training: endurance)
        #expect(hold == .hang(rep: endurance.plan()[0], remainingMicros: nil))
    }
}
