import Foundation
import GripSimulator
import GripWire
import GripReplay
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
            actual = String(
                decoding: try ReplayReport.replaying(path: capture.path, options: Self.options(for: capture.lastPathComponent))
                    .jsonData(),
                as: UTF8.self)
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

    /// Replay options for a capture: the simulated Frez Dyno's calibration for its sessions.
    static func options(for fileName: String) -> ReplayOptions {
        fileName.hasPrefix("frez-") ? ReplayOptions(calibration: SimulatedDevice.frezCalibration) : ReplayOptions()
    }

    @Test("a Frez Dyno capture replayed without --calibration is refused with where to give it, not stored as zeros")
    func frezCaptureNeedsCalibration() throws {
        let path = CaptureFixtures.capturesDirectory.appendingPathComponent("frez-dyno-rfd.btsnoop").path
        #expect {
            try ReplayReport.replaying(path: path)
        } throws: { error in
            guard case ReplayError.needsCalibration(let device) = error else { return false }
            return device == "Frez Dyno" && "\(error)".contains("--calibration")
        }
    }

    /// The Tindeq and its clones (the same frames: float32 peaks are checked bit for bit).
    static let progressorSessions = CaptureCatalog.all.filter { $0.session.device.profile.identifier == "progressor" }
        .map(\.name)
    static let otherDeviceSessions = CaptureCatalog.all.filter { $0.session.device != .progressor }.map(\.name)

    @Test("each simulated Progressor session gives the efforts a person would count, with float32-exact peaks", arguments: progressorSessions)
    func personCountedEffortsAndExactPeaks(name: String) throws {
        let entry = try #require(CaptureCatalog.all.first { $0.name == name })
        let path = CaptureFixtures.capturesDirectory.appendingPathComponent("\(name).btsnoop").path
        let report = try ReplayReport.replaying(path: path)
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

    /// Devices other than the Progressor: what the simulated hand did (the session's force program) against what the
    /// replay measured, through the device's own frame layout and the host-stamped clock.
    @Test("each other device's session: its profile is chosen, efforts start when the pulls did and peak at their force", arguments: otherDeviceSessions)
    func hostStampedSessionMatchesTheHand(name: String) throws {
        let entry = try #require(CaptureCatalog.all.first { $0.name == name })
        let path = CaptureFixtures.capturesDirectory.appendingPathComponent("\(name).btsnoop").path
        let report = try ReplayReport.replaying(path: path, options: Self.options(for: name))
        #expect(report.device.profile == entry.session.device.profile.identifier)
        // Only a session that sends bad frames on purpose (the CTS500's bad checksum) has malformed ones.
        let sendsBadFrames = entry.session.steps.contains { if case .malformed = $0 { true } else { false } }
        #expect(sendsBadFrames || report.frames.malformed.isEmpty)
        // Each pull with the index of its stretch of streaming (pull times count from the stretch's start).
        let stretches = entry.session.steps.compactMap { step -> ForceProgram? in
            if case .stream(_, let program) = step { return program }
            return nil
        }
        let pulls = stretches.flatMap(\.pulls)
        let stretchOfPull = stretches.enumerated().flatMap { index, program in program.pulls.map { _ in index } }
        let efforts = report.recordings.flatMap(\.efforts)
        try #require(efforts.count == pulls.count, "\(name): \(entry.summary)")
        for (effort, pull) in zip(efforts, pulls) {
            // Peak: the pull's force above a baseline under 0.5 kg (which the Frez Dyno's start-up tare removes), plus
            // hand tremor and one step of rounding.
            #expect(abs(Double(effort.peakKg) - pull.peak) < 1.5, "\(name): peak \(effort.peakKg) kg for a \(pull.peak) kg pull")
            // Duration: rise + hold + fall, less what lies under the effort threshold, within two sample periods.
            let pullSeconds = pull.rise + pull.hold + pull.fall
            let measured = effort.endS - effort.startS
            #expect(measured <= pullSeconds + 0.1 && measured >= pullSeconds - 1.0,
                    "\(name): effort lasted \(measured) s for a \(pullSeconds) s pull")
        }
        // Spacing between efforts is the spacing between pulls: the host clock neither stretched nor squeezed time.
        // An effort starts where its rise crosses the threshold, earlier in a stronger pull's rise, so two starts
        // may differ by half a rise plus one sample of the slowest device (0.2 s) beyond the pulls' spacing.
        for index in efforts.indices.dropFirst() where stretchOfPull[index] == stretchOfPull[index - 1] {
            let measured = efforts[index].startS - efforts[index - 1].startS
            let planned = pulls[index].start - pulls[index - 1].start
            #expect(abs(measured - planned) < pulls[index].rise / 2 + 0.2, "\(name): efforts \(index) and \(index + 1) are \(measured) s apart, pulls \(planned) s")
        }
    }
}
