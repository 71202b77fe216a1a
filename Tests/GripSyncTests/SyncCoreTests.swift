import Foundation
import GripTestSupport
import Synchronization
import Testing

@testable import GripSync

/// The pure parts of sync's defences, without a server.
@Suite("Sync cores")
struct SyncCoreTests {
    static let declined = [UInt8(ascii: "N")]
    static let cleartextRequest = FakePostgresServer.message("R", FakePostgresServer.int32(3))
    static let notice = FakePostgresServer.message("N", Array("SNOTICE\0Mhello\0\0".utf8))
    static let sasl = FakePostgresServer.message("R", FakePostgresServer.int32(10) + Array("SCRAM-SHA-256\0\0".utf8))

    @Test("the watch refuses a cleartext request after TLS was declined, fed whole, byte by byte and in pieces")
    func cleartextAfterDeclinedTLS() {
        let stream = Self.declined + Self.notice + Self.cleartextRequest
        #expect(feedWholeAndSplit(stream) == .refuse)
    }

    @Test("the watch passes SASL after a declined TLS, and everything once TLS was accepted or login succeeded")
    func otherExchangesPass() {
        #expect(feedWholeAndSplit(Self.declined + Self.sasl + FakePostgresServer.startupReply) == .pass)
        #expect(feedWholeAndSplit([UInt8(ascii: "S")] + Self.cleartextRequest) == .pass)
        #expect(feedWholeAndSplit(Self.declined + FakePostgresServer.startupReply + Self.cleartextRequest) == .pass)
    }

    private func feedWholeAndSplit(_ bytes: [UInt8]) -> CleartextPasswordWatch.Verdict {
        var whole = CleartextPasswordWatch()
        let verdict = whole.feed(bytes)
        var single = CleartextPasswordWatch()
        var singleVerdict = CleartextPasswordWatch.Verdict.pass
        for byte in bytes where singleVerdict == .pass { singleVerdict = single.feed([byte]) }
        var pieces = CleartextPasswordWatch()
        var piecesVerdict = CleartextPasswordWatch.Verdict.pass
        var start = 0
        while start < bytes.count, piecesVerdict == .pass {
            let end = min(bytes.count, start + 3)
            piecesVerdict = pieces.feed(bytes[start..<end])
            start = end
        }
        #expect(singleVerdict == verdict)
        #expect(piecesVerdict == verdict)
        return verdict
    }

    @Test("server text loses control characters and is cut to its limit with a note")
    func serverTextCleaned() {
        #expect(ServerText.clean("relation \"x\" does not exist") == "relation \"x\" does not exist")
        #expect(ServerText.clean("a\u{1B}[31mb\u{9B}c\u{202E}d\n") == "a [31mb c d ")
        let long = ServerText.clean(String(repeating: "é", count: 600))
        #expect(long == String(repeating: "é", count: 500) + "… (100 more characters cut)")
    }

    @Test("a deadline ends a wait that never returns, and cancellation ends it too, calling abandon once each")
    func deadlineEndsStuckWork() async throws {
        let abandoned = Counter()
        await #expect(throws: Deadline.Expired.self) {
            try await Deadline.run(within: .milliseconds(100), abandon: { abandoned.add() }) {
                try? await Task.sleep(for: .seconds(3600))
                return 1
            }
        }
        #expect(abandoned.value == 1)
        let task = Task {
            try await Deadline.run(within: .seconds(3600), abandon: { abandoned.add() }) {
                try? await Task.sleep(for: .seconds(3600))
                return 1
            }
        }
        try await Task.sleep(for: .milliseconds(50))
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(abandoned.value == 2)
        #expect(try await Deadline.run(within: .seconds(10), abandon: { abandoned.add() }) { 7 } == 7)
        #expect(abandoned.value == 2)
    }

    @Test("the schema check names a changed type, a dropped NOT NULL, a missing column and a changed key")
    func schemaDifferences() {
        var found = SchemaCheck.expected
        found.columns["sample_blocks"]?["samples"]?.type = "text"
        found.columns["efforts"]?["peak_kg"]?.notNull = false
        found.columns["tombstones"]?["deleted_at"] = nil
        found.primaryKeys["recordings"] = []
        #expect(found.differences(from: .expected) == [
            "efforts.peak_kg is nullable, not NOT NULL",
            "the primary key of recordings is missing, not (uuid)",
            "sample_blocks.samples is text, not bytea",
            "tombstones.deleted_at is missing",
        ])
        found.columns["extra_table"] = ["x": .init(type: "text", notNull: false)]
        found.columns["recordings"]?["dashboard_note"] = .init(type: "text", notNull: false)
        #expect(found.differences(from: .expected).count == 4)
    }
}

/// A thread-safe counter for callbacks.
final class Counter: Sendable {
    private let count = Mutex(0)
    var value: Int { count.withLock { $0 } }
    func add() { count.withLock { $0 += 1 } }
}
