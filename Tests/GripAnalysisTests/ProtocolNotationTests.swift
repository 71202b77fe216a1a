import GripAnalysis
import Testing

@Suite("Protocol notation")
struct ProtocolNotationTests {
    @Test("the five built-ins read as documented")
    func builtIns() throws {
        #expect(BuiltInProtocols.named("repeaters") == TrainingProtocol(
            kind: .repeaters, reps: 6, workMicros: 7_000_000, restMicros: 3_000_000, setRestMicros: 180_000_000,
            targetPercent: 75...85))
        #expect(BuiltInProtocols.named("max") == TrainingProtocol(
            kind: .max, reps: 3, workMicros: 10_000_000, restMicros: 180_000_000, setRestMicros: 180_000_000,
            alternate: true))
        #expect(BuiltInProtocols.named("CF") == TrainingProtocol(
            kind: .cf, reps: 24, workMicros: 7_000_000, restMicros: 3_000_000))
        #expect(BuiltInProtocols.named("rfd") == TrainingProtocol(
            kind: .rfd, reps: 3, workMicros: nil, restMicros: 60_000_000, setRestMicros: 60_000_000))
        #expect(BuiltInProtocols.named("endurance") == TrainingProtocol(
            kind: .endurance, reps: 1, workMicros: nil, restMicros: 180_000_000, setRestMicros: 180_000_000,
            targetPercent: 40...80))
        #expect(BuiltInProtocols.all.allSatisfy { (try? ProtocolNotation.parse($0.notation)) != nil })
    }

    @Test("words come in any order, with sets and a set rest")
    func anyOrder() throws {
        let parsed = try ProtocolNotation.parse("repeaters @70-80%  3 sets 7:3 rest 2m 6x")
        #expect(parsed == TrainingProtocol(
            kind: .repeaters, reps: 6, sets: 3, workMicros: 7_000_000, restMicros: 3_000_000,
            setRestMicros: 120_000_000, targetPercent: 70...80))
    }

    @Test("a mistake names its column and what to write", arguments: [
        ("", "column 1: empty: start with a kind (repeaters, max, cf, rfd, endurance)"),
        ("hangs 6x", "column 1: \"hangs\" is not a kind; expected repeaters, max, cf, rfd, endurance"),
        ("repeaters 6x 7-3", "column 14: \"7-3\": write work and rest with a colon, e.g. 7:3"),
        ("repeaters 6x 7:3 slowly", "column 18: \"slowly\" is not understood; expected Nx, N sets, W:R, a duration (10s, 2m), rest D, @P% or @L-H%, alternate"),
        ("repeaters 6x 7:x", "column 14: \"7:x\" is not work:rest; write seconds, e.g. 7:3"),
        ("max 3x 10 rest 180s", "column 8: \"10\" is not a duration; write seconds or minutes, e.g. 10s or 3m"),
        ("max 3x 10s rest", "column 12: rest needs a duration after it, e.g. rest 180s"),
        ("repeaters 0x 7:3", "column 11: 0 reps is outside 1–100"),
        ("repeaters 6x 7:3 @80", "column 18: \"@80\" needs a % sign, e.g. @80% or @40-80%"),
        ("endurance @80-40%", "column 11: \"@80-40%\": the band's low end must be below its high end"),
        ("repeaters 6x 7:3 5x", "column 18: reps is given twice (first at column 11)"),
        ("cf 24x 7:3 @80%", "column 12: cf is all-out: every rep as hard as possible, so it takes no target band"),
        ("max 3x @80%", "column 8: max pulls are all-out, so they take no target band"),
        ("endurance 30s @40-80%", "column 11: an endurance hold lasts until failure; leave the duration out"),
        ("max 3x 0.1s", "column 8: work 0.1s is outside 0.5–600s"),
    ])
    func errors(_ text: String, message: String) {
        #expect(throws: (any Error).self) { try ProtocolNotation.parse(text) }
        do {
            _ = try ProtocolNotation.parse(text)
        } catch {
            #expect(error.description == message)
        }
    }

    @Test("a plan times every rep from the first, sets apart by the set rest, hands alternating when asked")
    func plan() throws {
        let repeaters = try ProtocolNotation.parse("repeaters 2x 7:3 2 sets rest 60s").plan()
        #expect(repeaters.map(\.startMicros) == [0, 10_000_000, 77_000_000, 87_000_000])
        #expect(repeaters.map(\.set) == [1, 1, 2, 2] && repeaters.map(\.repInSet) == [1, 2, 1, 2])
        let max = try #require(BuiltInProtocols.named("max")).plan(firstHand: .left)
        #expect(max.map(\.hand) == [.left, .right, .left])
        #expect(max.map(\.startMicros) == [0, 190_000_000, 380_000_000])
    }
}
