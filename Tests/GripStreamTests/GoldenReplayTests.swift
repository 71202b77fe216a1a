import Foundation
import GripSimulator
import GripWire
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

    @Test("each simulated session gives the efforts a person would count, with float32-exact peaks", arguments: CaptureCatalog.all.map(\.name))
    func personCountedEffortsAndExactPeaks(name: String) throws {
        let entry = try #require(CaptureCatalog.all.first { $0.name == name })
        let path = CaptureFixtures.capturesDirectory.appendingPathComponent("\(name).btsnoop").path
        let report = try CaptureReplay.run(path: path)
        let efforts = report.recordings.flatMap(\.efforts)
        #expect(efforts.count == entry.expectedEfforts, "\(name): \(entry.summary)")

        // Every float32 the device sent, read straight from the weight frames (code 0x01, then 8-byte samples:
        // float32 kg, u32 µs), without the Progressor decoder or the segmenter.
        var sent = Set<UInt32>()
        _ = try CaptureFile.read(path: path) { event in
            guard case .notification(_, _, let value, _) = event, value.count >= 2, value[0] == 0x01 else { return }
            var offset = 2
            while offset + 8 <= value.count {
                sent.insert(value[offset..<offset + 4].reversed().reduce(0) { $0 << 8 | UInt32($1) })
                offset += 8
            }
        }
        let json = String(decoding: try report.jsonData(), as: UTF8.self)
        for effort in efforts {
            #expect(sent.contains(effort.peakKg.bitPattern), "\(name): peak \(effort.peakKg) is not a value the device sent")
            // The shortest decimal that reads back as that float32, not a rounded one.
            #expect(json.contains("\"peak_kg\" : \(effort.peakKg.description),"), "\(name): peak not written exactly")
        }
    }
}
