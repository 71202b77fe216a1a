import Foundation
import GripSimulator
import GripStream
import GripTestSupport
import Testing

/// gpsd-style regression suite: every capture in `captures/` replays to the expected output beside it.
@Suite("Golden replays")
struct GoldenReplayTests {
    static let captures = CaptureFixtures.allBtsnoopFiles()

    @Test("every capture replays to its expected output", arguments: captures)
    func captureMatchesExpectedOutput(capture: URL) throws {
        let expectedURL = capture.deletingPathExtension().appendingPathExtension("expected.json")
        // A capture that cannot be replayed (e.g. the third-party ones, from a device that is not a force
        // sensor) has its refusal as expected output: the message a user would read.
        let actual: String
        do {
            actual = String(decoding: try CaptureReplay.run(path: capture.path).jsonData(), as: UTF8.self)
        } catch {
            actual = "{\n  \"error\" : \"\(error)\"\n}\n"
        }
        if CaptureFixtures.updateGolden {
            try Data(actual.utf8).write(to: expectedURL)
            return
        }
        guard let expected = try? String(contentsOf: expectedURL, encoding: .utf8) else {
            Issue.record("\(expectedURL.lastPathComponent) is missing: run GRIPTRACK_UPDATE_GOLDEN=1 swift test and commit it")
            return
        }
        #expect(actual == expected, "\(capture.lastPathComponent) no longer replays to \(expectedURL.lastPathComponent)")
    }

    @Test("the catalogue and captures/ hold the same simulated sessions, byte for byte", arguments: CaptureCatalog.all.map(\.name))
    func committedCaptureIsReproducible(name: String) throws {
        let entry = try #require(CaptureCatalog.all.first { $0.name == name })
        let url = CaptureFixtures.capturesDirectory.appendingPathComponent("\(name).btsnoop")
        let committed = try Data(contentsOf: url)
        #expect(committed == Data(entry.session.render()),
                "captures/\(name).btsnoop differs from the simulator: run `griptrack simulate --all -o captures`")
    }
}
