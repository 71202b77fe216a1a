import Foundation
import Testing

/// Machine output never rounds a force: what `replay --json` measured is what `show`, `list` and `export` print
/// after the recording was stored, bit for bit (docs/replay-json.md).
@Suite("Exact forces in JSON output")
struct ExactForcesTests {
    @Test("a stored recording's peaks, max and samples come back from show, list and export as the exact float32")
    func storedForcesStayExact() async throws {
        let sandbox = try CLISandbox(config: "[entitlements]\nbypass = true\n")  // export is Pro
        defer { sandbox.cleanUp() }
        let replay = try await sandbox.run("replay", sandbox.capture("rfd-ends-loaded"), "--save", "--json")
        #expect(replay.status == 0, "\(replay)")
        let measured = try #require(try JSONSerialization.jsonObject(with: Data(replay.stdout.utf8)) as? [String: Any])
        let recording = try #require((measured["recordings"] as? [[String: Any]])?.first)
        let peaks = try #require(recording["efforts"] as? [[String: Any]]).compactMap { $0["peak_kg"] as? Double }
        #expect(peaks.count == 1)

        let show = try await sandbox.run("show", "1", "--json")
        let shown = try #require(try JSONSerialization.jsonObject(with: Data(show.stdout.utf8)) as? [String: Any])
        let shownPeaks = try #require(shown["efforts"] as? [[String: Any]]).compactMap { $0["peak_kg"] as? Double }
        #expect(shownPeaks.map { Float($0) } == peaks.map { Float($0) })
        // The text is the float32's shortest form (e.g. 35.35026), not the gram (35.35) nor the double expansion.
        for peak in peaks { #expect(show.stdout.contains("\"peak_kg\" : \(Float(peak).description)"), "\(show)") }
        #expect(try #require(shown["efforts"] as? [[String: Any]]).first?["open"] as? Bool == true)

        let list = try await sandbox.run("list", "--json")
        #expect(list.stdout.contains("\"max_kg\" : \(Float(peaks[0]).description)"), "\(list)")

        // Every sample exported is a float32 the device sent: the max of the export is the effort's peak.
        let export = try await sandbox.run("export", "1", "--format", "json")
        let exported = try #require(try JSONSerialization.jsonObject(with: Data(export.stdout.utf8)) as? [String: Any])
        let forces = try #require(exported["samples"] as? [[String: Any]]).compactMap { $0["kg"] as? Double }
        #expect(forces.map { Float($0) }.max() == Float(peaks[0]))
    }
}

@Suite("replay --json on a capture that cannot be replayed")
struct ReplayJSONErrorTests {
    @Test("stdout still holds one JSON object with capture.error, and the exit code is 5")
    func unreadableCaptureGivesJSONError() async throws {
        let sandbox = try CLISandbox()
        defer { sandbox.cleanUp() }
        let garbage = sandbox.directory.appendingPathComponent("garbage.btsnoop")
        try Data("not a btsnoop file at all".utf8).write(to: garbage)
        let result = try await sandbox.plain(["replay", garbage.path, "--json"])
        #expect(result.status == 5)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let error = try #require((object["capture"] as? [String: Any])?["error"] as? String)
        #expect(error.contains("cannot replay"), "\(result)")
    }
}
