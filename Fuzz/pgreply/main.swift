// libFuzzer harness for what the sync client reads from a PostgreSQL server (docs/fuzzing.md, docs/sync.md): a
// server is somebody else's program, and a hostile or broken one (or a man in the middle on a `prefer` link) must
// get a SyncError out of griptrack, never a trap, a hang or its password.
//
// The first byte picks what is fed:
// - the rest as the server's answer to one of the client's queries, on a real PostgresConnection over an
//   in-memory channel (NIOAsyncTestingChannel) that has completed the startup: the schema check's catalog reads,
//   `list --everywhere`'s recordings, `show --everywhere`'s efforts and sample chunks (decoded with the store's
//   codec), and the migration; then the channel is closed, and the query must end by itself;
// - the rest as the first bytes a `prefer` server sends, to CleartextPasswordWatch, whole and in pieces (the
//   verdict must not depend on how the bytes were split);
// - the rest as a server's error text, to ServerText (the result has no control character and keeps the limit).
// Seeds: Fuzz/Corpus/pgreply (scripts/fuzz-seeds).

import Dispatch
import Foundation
import FuzzSupport
import Logging
import PostgresNIO
import Synchronization

@testable import GripSync

let logger = Logger(label: "fuzz.pgreply")
let client = SyncClient(
    settings: SyncSettings(
        endpoint: SyncEndpoint(host: "/fuzz", user: "griptrack", database: "griptrack", tls: .disable),
        account: "crag-gym", deviceName: "pi-fuzz"),
    logger: logger)

/// AuthenticationOk, the parameters postgres-nio reads, BackendKeyData, ReadyForQuery (idle).
let startupReply: [UInt8] = {
    func int32(_ value: Int32) -> [UInt8] { withUnsafeBytes(of: value.bigEndian) { Array($0) } }
    func message(_ type: Character, _ body: [UInt8]) -> [UInt8] { [type.asciiValue!] + int32(Int32(body.count + 4)) + body }
    func parameter(_ name: String, _ value: String) -> [UInt8] {
        message("S", Array(name.utf8) + [0] + Array(value.utf8) + [0])
    }
    return message("R", int32(0)) + parameter("server_version", "15.0") + parameter("client_encoding", "UTF8")
        + parameter("DateStyle", "ISO, MDY") + parameter("integer_datetimes", "on") + parameter("TimeZone", "UTC")
        + message("K", int32(4242) + int32(1234)) + message("Z", [UInt8(ascii: "I")])
}()

/// Queries whose answers ended only by the harness's own deadline: postgres-nio left them waiting after the
/// channel closed (regression-stuck-after-close; the client's Deadline covers that, so it is counted, not a
/// failure of griptrack's code). Their channel and connection are kept here: the stuck task still refers to them,
/// and LeakSanitizer would otherwise report what the product abandons on purpose.
let stuck = Mutex<[any Sendable]>([])

/// One of the client's queries, answered with `reply`.
func answer(query: UInt8, reply: [UInt8]) async {
    let channel = NIOAsyncTestingChannel()
    do {
        try await channel.connect(to: try SocketAddress(ipAddress: "127.0.0.1", port: 5432)).get()
    } catch {
        fuzzFailure("the in-memory channel did not connect: \(error)")
    }
    let configuration = PostgresConnection.Configuration(
        establishedChannel: channel, username: "griptrack", password: nil, database: "griptrack")
    let connecting = Task {
        try await PostgresConnection.connect(on: channel.eventLoop, configuration: configuration, id: 1, logger: logger)
    }
    _ = try? await channel.waitForOutboundWrite(as: ByteBuffer.self)  // the StartupMessage
    _ = try? await channel.writeInbound(ByteBuffer(bytes: startupReply))
    guard let connection = try? await connecting.value else {
        fuzzFailure("the startup reply did not complete the startup")
    }
    let work = Task {
        try await Deadline.run(within: .seconds(2), abandon: { _ = connection.close() as EventLoopFuture<Void> }) {
            switch query % 4 {
            case 0:
                let found = try await SchemaCheck.read(connection, logger: logger)
                _ = found.differences(from: .expected)
            case 1:
                _ = try await client.fetchRecordings(on: connection, uuidPrefix: nil, limit: 20)
            case 2:
                _ = try await client.lookUp("6f1d2e3c", account: "crag-gym", on: connection)
            default:
                _ = try await ServerSchema.migrate(connection, logger: logger)
            }
        }
    }
    _ = try? await channel.waitForOutboundWrite(as: ByteBuffer.self)  // the query
    _ = try? await channel.writeInbound(ByteBuffer(bytes: reply))
    try? await channel.close()
    if case .failure(let error) = await work.result, error is Deadline.Expired {
        let first = stuck.withLock { kept in
            kept.append(connection)
            kept.append(channel)
            return kept.count == 2
        }
        if first { FileHandle.standardError.write(Data("pgreply: a query outlived its closed channel\n".utf8)) }
        return
    }
    try? await connection.close()
}

/// Whether `reply` holds a DataRow with a negative column count: postgres-nio 1.33's decoder traps on it (not fixed
/// yet: docs/fuzzing.md, Fuzz/Known/pgreply). Such replies are skipped so that runs look for what is not known.
func hasNegativeColumnCount(_ reply: [UInt8]) -> Bool {
    var index = 0
    while index + 5 <= reply.count {
        let length = reply[(index + 1)...(index + 4)].reduce(0) { $0 << 8 | Int($1) }
        if reply[index] == UInt8(ascii: "D"), index + 7 <= reply.count, reply[index + 5] & 0x80 != 0 { return true }
        guard length >= 4 else { return false }
        index += 1 + length
    }
    return false
}

fuzzMain { data, size in
    let input = Array(fuzzInput(data, size))
    guard let mode = input.first else { return 0 }
    let rest = Array(input.dropFirst())
    switch mode % 4 {
    case 0, 1:
        guard !hasNegativeColumnCount(rest) else { return 0 }
        let done = DispatchSemaphore(value: 0)
        // Detached: top-level code runs on the main actor, whose thread waits on the semaphore below.
        Task.detached {
            await answer(query: mode / 4, reply: rest)
            done.signal()
        }
        done.wait()
    case 2:
        var whole = CleartextPasswordWatch()
        let verdict = whole.feed(rest)
        var pieces = CleartextPasswordWatch()
        var piecewise = CleartextPasswordWatch.Verdict.pass
        var start = 0
        let step = Int(mode / 4) + 1
        while start < rest.count, piecewise == .pass {
            piecewise = pieces.feed(rest[start..<min(rest.count, start + step)])
            start += step
        }
        if piecewise != verdict { fuzzFailure("the watch's verdict depends on the split: \(verdict) vs \(piecewise)") }
    default:
        let text = String(decoding: rest, as: UTF8.self)
        let clean = ServerText.clean(text)
        if clean.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) {
            fuzzFailure("a control character survived ServerText.clean")
        }
        if clean.unicodeScalars.count > ServerText.limit + 40 { fuzzFailure("ServerText.clean kept too much") }
    }
    return 0
}
