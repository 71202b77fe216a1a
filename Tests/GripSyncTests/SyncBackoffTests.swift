import Testing

@testable import GripSync

@Suite("Sync backoff")
struct SyncBackoffTests {
    @Test("the interval after success; doubling after failures, capped at 5 minutes; reset by a success")
    func doublesToCeiling() {
        var backoff = SyncBackoff(interval: .seconds(60))
        #expect(backoff.delay == .seconds(60))
        var delays: [Duration] = []
        for _ in 0..<5 {
            backoff.record(success: false)
            delays.append(backoff.delay)
        }
        #expect(delays == [.seconds(120), .seconds(240), .seconds(300), .seconds(300), .seconds(300)])
        backoff.record(success: true)
        #expect(backoff.delay == .seconds(60))
        for _ in 0..<1000 { backoff.record(success: false) }
        #expect(backoff.delay == .seconds(300))
    }
}
