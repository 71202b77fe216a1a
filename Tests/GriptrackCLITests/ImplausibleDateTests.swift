import Foundation
import Testing

/// A capture whose clock says the year 292276 must not poison the database (it once stored a row no reader could
/// decode).
@Suite("Implausible capture dates")
struct ImplausibleDateTests {
    /// The capture with every record's timestamp moved `offsetMicros` later (btsnoop: 16-byte file header, then
    /// records of 24-byte header — lengths, flags, drops, 64-bit big-endian µs — and data).
    static func shifted(_ path: String, by offsetMicros: Int64, into directory: URL) throws -> String {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        var offset = 16
        while offset + 24 <= bytes.count {
            let included = bytes[offset + 4..<offset + 8].reduce(0) { $0 << 8 | Int($1) }
            let stamp = bytes[offset + 16..<offset + 24].reduce(Int64(0)) { $0 << 8 | Int64($1) } &+ offsetMicros
            for index in 0..<8 { bytes[offset + 16 + index] = UInt8(truncatingIfNeeded: stamp >> (56 - 8 * index)) }
            offset += 24 + included
        }
        let url = directory.appendingPathComponent("far-future.btsnoop")
        try Data(bytes).write(to: url)
        return url.path
    }

    @Test("replay --save of a capture dated in the year 292276 exits 5 naming the date, stores nothing, and list still works")
    func farFutureCaptureIsRefused() async throws {
        let sandbox = try CLISandbox()
        defer { sandbox.cleanUp() }
        // ≈ 290 000 years later.
        let capture = try Self.shifted(sandbox.capture("repeaters"), by: 9_150_000_000_000_000_000 / 1_000, into: sandbox.directory)
        let saved = try await sandbox.run("replay", capture, "--save")
        #expect(saved.status == 5, "\(saved)")
        #expect(saved.stderr.contains("is outside 2000–2100: the clock that dated it was wrong, or the file is damaged. Nothing was stored."), "\(saved)")
        let list = try await sandbox.run("list", "--json")
        #expect(list.status == 0, "\(list)")
        #expect(list.stdout.contains("\"recordings\" : [\n\n  ]") || list.stdout.contains("\"recordings\" : []"), "\(list)")
        let replayed = try await sandbox.run("replay", capture)
        #expect(replayed.status == 0, "without --save the capture still replays: \(replayed)")
    }
}
