import Foundation
import Testing

@testable import GripDaemon

/// `ExecutablePages` on this test process: its executable (the test runner, with every module linked in) has had
/// megabytes of pages touched by the time this runs.
@Suite("Executable pages")
struct ExecutablePagesTests {
    /// A field of /proc/self/status, in KiB.
    static func status(_ field: String) throws -> Int {
        let text = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        let line = try #require(text.split(separator: "\n").first { $0.hasPrefix(field + ":") })
        return try #require(Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? ""))
    }

    @Test("giving back the executable's read-only pages shrinks the resident set, and the code still runs")
    func releaseShrinksResidentSet() throws {
        let before = try Self.status("RssFile")
        let advised = try #require(ExecutablePages.release())
        let after = try Self.status("RssFile")
        // The executable's read-only mappings (text and read-only data) were advised whole.
        #expect(advised > 1 << 20)
        #expect(after < before, "RssFile \(before) KiB before, \(after) KiB after")
        // What runs next faults its pages back in: the same code, read from the same file.
        #expect(ProtocolMessage.samples(micros: [1_000_000][...], kilograms: [2.5][...]).hasPrefix(#"{"class":"SAMPLES""#))
    }
}
