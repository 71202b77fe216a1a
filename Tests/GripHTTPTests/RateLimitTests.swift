import GripHTTP
import GripSystem
import NIOCore
import Testing

@Suite("Rate limits and log throttling")
struct RateLimitTests {
    /// A minute boundary (1_000_020 = 16_667 × 60).
    let t0 = 1_000_020.0

    func key(_ address: String) throws -> ClientKey {
        ClientKey(peer: try SocketAddress(ipAddress: address, port: 40_000))
    }

    /// The budget's answers to `calls`, in order.
    func answers(_ budget: inout RequestBudget, _ calls: [(ClientKey, Double)]) -> [Bool] {
        calls.map { budget.admit($0.0, at: $0.1) }
    }

    @Test("a client gets its limit per minute, then again as the last minute slides away")
    func budgetPerMinute() throws {
        var budget = RequestBudget(limit: 2)
        let a = try key("192.0.2.1"), b = try key("192.0.2.2")
        let first = answers(&budget, [(a, t0), (a, t0 + 1), (a, t0 + 2), (b, t0 + 2)])
        #expect(first == [true, true, false, true])
        // 1 s into the next minute the last one's 2 still weigh 59/60 of 2: one more fits, a second does not.
        let next = answers(&budget, [(a, t0 + 61), (a, t0 + 62)])
        #expect(next == [true, false])
        // Two minutes later the slate is clean.
        let later = answers(&budget, [(a, t0 + 185), (a, t0 + 186)])
        #expect(later == [true, true])
    }

    @Test("asking whether a client has budget counts nothing; it sees the sliding minute as admit does")
    func hasBudgetCountsNothing() throws {
        var budget = RequestBudget(limit: 2)
        let a = try key("192.0.2.1")
        var asked = 0
        for index in 0..<50 where budget.hasBudget(a, at: t0 + Double(index) / 100) { asked += 1 }
        #expect(asked == 50)
        #expect(answers(&budget, [(a, t0 + 1), (a, t0 + 2)]) == [true, true])
        let full = !budget.hasBudget(a, at: t0 + 3)
        // 30 s into the next minute half of the last one's 2 still weighs: 1 < 2, room again.
        let roomAgain = budget.hasBudget(a, at: t0 + 90)
        #expect(full && roomAgain)
    }

    @Test("a refused request is not counted, so a client that backs off gets through")
    func refusedNotCounted() throws {
        var budget = RequestBudget(limit: 1)
        let a = try key("192.0.2.1")
        let meanwhile = answers(&budget, [(a, t0)] + (1...30).map { (a, t0 + Double($0)) })
        #expect(meanwhile == [true] + Array(repeating: false, count: 30))
        let after = answers(&budget, [(a, t0 + 125)])
        #expect(after == [true])
    }

    @Test("an IPv6 /64 is one client; another /64 and IPv4-mapped addresses are not that client")
    func ipv6Networks() throws {
        var budget = RequestBudget(limit: 2)
        let first = try key("2001:db8:1:2::1"), sameNetwork = try key("2001:db8:1:2:ffff:ffff:ffff:ffff")
        let otherNetwork = try key("2001:db8:1:3::1")
        #expect(first == sameNetwork)
        #expect(first.description == "2001:db8:1:2::/64")
        let got = answers(&budget, [(first, t0), (sameNetwork, t0), (try key("2001:db8:1:2::abcd"), t0), (otherNetwork, t0)])
        #expect(got == [true, true, false, true])
        #expect(try key("::ffff:192.0.2.9") == key("192.0.2.9"))
    }

    @Test("many addresses share one overflow budget past the table's size, and the table stays bounded")
    func manyClientsBounded() throws {
        var budget = RequestBudget(limit: 3, maxClients: 100)
        let calls = (0..<10_000).map { (ClientKey.ipv4(0xC000_0000 | UInt32($0)), t0 + 10) }
        let admitted = answers(&budget, calls).filter { $0 }.count
        #expect(budget.trackedClients <= 100)
        // 99 clients told apart (one each), then the overflow key admits its budget of 3 for all the rest.
        #expect(admitted == 99 + 3)
    }

    @Test("X-Forwarded-For names the client only when the peer is the proxy on loopback")
    func forwardedFor() throws {
        let proxy = try SocketAddress(ipAddress: "127.0.0.1", port: 40_000)
        let stranger = try SocketAddress(ipAddress: "203.0.113.9", port: 40_000)
        #expect(ClientKey(peer: proxy, forwardedFor: "198.51.100.1, 192.0.2.7") == (try key("192.0.2.7")))
        #expect(ClientKey(peer: stranger, forwardedFor: "192.0.2.7") == (try key("203.0.113.9")))
        #expect(ClientKey(peer: proxy, forwardedFor: nil) == (try key("127.0.0.1")))
        #expect(ClientKey(peer: proxy, forwardedFor: "not an address") == (try key("127.0.0.1")))
    }

    @Test("10,000 like events make one line a minute, the next line counting the rest")
    func logThrottle() {
        let throttle = LogThrottle(seconds: 60)
        var lines: [Int] = []
        for index in 0..<10_000 {
            if let unlogged = throttle.admit("203.0.113.9 rate limit", now: t0 + Double(index) / 1_000) { lines.append(unlogged) }
        }
        #expect(lines == [0])
        #expect(throttle.admit("203.0.113.9 rate limit", now: t0 + 61) == 9_999)
        #expect(throttle.admit("another key", now: t0 + 61) == 0)
    }

    @Test("untrusted text is quoted: newlines, bidi overrides and quotes cannot forge or reorder a line")
    func quotedForLog() {
        #expect("ES256\nFAKE".quotedForLog() == #""ES256\u{A}FAKE""#)
        #expect("left\u{202E}thgir".quotedForLog() == #""left\u{202E}thgir""#)
        #expect(#"a"b\c"#.quotedForLog() == #""a\"b\\c""#)
        #expect(String(repeating: "x", count: 100).quotedForLog(limit: 4) == "\"xxxx…\"")
    }
}
