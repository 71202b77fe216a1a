import Foundation
import GripReplay
import GripTestSupport
import GripStream
import GripWire
import Testing

/// Choosing a profile from the data alone (no discovery naming a device, `--handle`, griptrackd's replay): a profile
/// is chosen only when its decoder takes at least 90 % of a handle's notifications, and a refusal says what every
/// profile made of every handle (docs/devices.md, "Choosing a profile from the data").
@Suite("Profile choice from content")
struct ProfileChoiceTests {
    /// A capture without discovery: one connection and these notifications on handle 0x000e, 100 ms apart.
    static func capture(_ values: [[UInt8]]) throws -> URL {
        var writer = BtsnoopWriter(datalink: .linuxMonitor)
        var micros: Int64 = 1_795_000_000_000_000
        writer.appendNewIndex(address: [0x01, 0x00, 0x00, 0xEB, 0x27, 0xB8], name: "hci0", hostMicros: micros)
        writer.appendLEConnectionComplete(connection: 0x40, peer: [0xF4, 0xD3, 0x6B, 0x4A, 0x17, 0x19], hostMicros: micros)
        for value in values {
            micros += 100_000
            writer.appendATT(ATTPDU.notification(handle: 0x000E, value: value), connection: 0x40, direction: .received,
                             hostMicros: micros)
        }
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("choice-\(UUID()).btsnoop")
        try Data(writer.bytes).write(to: url)
        return url
    }

    /// Entralpi-shaped values (a u16 BE of hundredths) for `good` notifications, and 3-byte values no profile takes
    /// for the rest, interleaved.
    static func entralpiStream(good: Int, bad: Int) -> [[UInt8]] {
        var values: [[UInt8]] = []
        for index in 0..<(good + bad) {
            let goodSoFar = values.filter { $0.count == 2 }.count
            if goodSoFar < good && (index * good) / (good + bad) >= goodSoFar {
                values.append([0x0B, UInt8(0xB8 &+ UInt8(index % 8))])
            } else {
                values.append([0x7A, 0x7B, 0x7C])
            }
        }
        return values
    }

    @Test("a stream whose frames one profile takes only 60 % of is not assigned to it, and the refusal says why")
    func mostlyRejectedStreamIsRefused() throws {
        let url = try Self.capture(Self.entralpiStream(good: 60, bad: 40))
        defer { try? FileManager.default.removeItem(at: url) }
        #expect {
            try ReplayReport.replaying(path: url.path)
        } throws: { error in
            guard case ReplayError.noForceHandle(_, _, let trials) = error, let handle = trials.first else { return false }
            let entralpi = handle.trials.first { $0.profile == "entralpi" }
            let text = "\(error)"
            return trials.count == 1 && handle.handle == 0x000E && handle.notifications == 100
                && entralpi?.decoded == 60 && entralpi?.rejected == [.lengthMismatch: 40]
                && handle.trials.map(\.profile) == DeviceProfiles.identifiers
                && text.contains("at least 90 %") && text.contains("entralpi 60 of 100 (60 %; 40 length_mismatch)")
        }
    }

    @Test("the same stream with 95 % of its frames good is chosen by content, and the rest counted malformed")
    func nearlyAllDecodedStreamIsChosen() throws {
        let url = try Self.capture(Self.entralpiStream(good: 95, bad: 5))
        defer { try? FileManager.default.removeItem(at: url) }
        let report = try ReplayReport.replaying(path: url.path)
        #expect(report.device.profile == "entralpi")
        #expect(report.forceHandle.source == "content")
        #expect(report.frames.decoded == 95 && report.frames.malformed == ["length_mismatch": 5])
    }

    @Test("--handle on a stream no profile mostly decodes is refused, not read as the first profile in the table")
    func handleOptionNeedsAQualifyingProfile() throws {
        let url = try Self.capture(Self.entralpiStream(good: 30, bad: 70))
        defer { try? FileManager.default.removeItem(at: url) }
        #expect {
            try ReplayReport.replaying(path: url.path, options: ReplayOptions(handle: 0x000E))
        } throws: { error in
            guard case ReplayError.noForceHandle(_, _, let trials) = error else { return false }
            return trials.map(\.handle) == [0x000E] && "\(error)".contains("entralpi 30 of 100 (30 %; 70 length_mismatch)")
        }
    }

    @Test("a trial's summary gives the share decoded and the reasons, most frequent first")
    func trialSummary() {
        let trial = ProfileTrial(profile: "progressor", decoded: 1, rejected: [.short: 2, .unknownCode: 5, .duplicate: 2])
        #expect(trial.summary == "progressor 1 of 10 (10 %; 5 unknown_code, 2 duplicate, 2 short)")
        #expect(!trial.qualifies)
        #expect(ProfileTrial(profile: "entralpi", decoded: 9, rejected: [.outOfRange: 1]).qualifies)
        #expect(!ProfileTrial(profile: "entralpi", decoded: 0).qualifies)
    }
}

extension ProfileChoiceTests {
    @Test("the simulated Climbro capture, whose unmarked 2-byte notifications look like Entralpi frames, is no Entralpi")
    func climbroIsNotTakenForAnEntralpi() throws {
        let url = CaptureFixtures.url("climbro-hangs.btsnoop")
        var chooser = ForceHandleChooser(option: nil)
        _ = try CaptureFile.read(path: url.path) { chooser.observe($0) }
        let trials = try #require(chooser.trials.first { $0.handle == 0x000E })
        let entralpi = try #require(trials.trials.first { $0.profile == "entralpi" })
        let climbro = try #require(trials.trials.first { $0.profile == "climbro" })
        #expect(entralpi.decoded > 0 && !entralpi.qualifies, "\(entralpi.summary)")
        #expect(climbro.qualifies && climbro.decoded == trials.notifications, "\(climbro.summary)")
        let report = try ReplayReport.replaying(path: url.path)
        #expect(report.device.profile == "climbro" && report.forceHandle.source == "content")
        #expect(report.device.timingLeftOut?.contains("1 kg steps") == true)
        #expect(report.recordings.flatMap(\.efforts).allSatisfy { $0.timeToPeakS == nil && $0.rfdKgS == nil })
    }
}
