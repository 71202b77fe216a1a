import Foundation
import GripStream
import GripTestSupport
import Testing

@testable import GripReplay

/// `ReplayReport.jsonData()` writes its JSON directly; JSONEncoder defines what that JSON is.
@Suite("Replay report JSON")
struct ReplayReportJSONTests {
    @Test("the direct writer gives JSONEncoder's bytes for every capture", arguments: CaptureFixtures.allBtsnoopFiles())
    func directWriterMatchesEncoderForCaptures(capture: URL) throws {
        // The Frez Dyno's captures need their calibration, as in the golden replays. Only the third-party captures of
        // a device that is no dynamometer are refused, by design; any other failure fails here.
        let report: ReplayReport
        do {
            report = try ReplayReport.replaying(
                path: capture.path, options: GoldenReplayTests.options(for: capture.lastPathComponent))
        } catch {
            guard case .noForceHandle = error, capture.path.contains("/third-party/") else { throw error }
            return
        }
        let direct = try #require(report.directJSON())
        #expect(Data(direct) == (try report.encodedWithJSONEncoder()))
    }

    @Test("absent optionals, empty lists, escapes, non-ASCII and whole-number floats match JSONEncoder")
    func directWriterMatchesEncoderForEdgeCases() throws {
        var report = ReplayReport(
            samples: 0, frames: .init(total: 0, decoded: 0, dropped: 0, malformed: [:]), recordings: [],
            forceHandle: .init(handle: "0x000e", source: "option"),
            device: .init(
                profile: "progressor", batteryMv: nil, firmware: "v1/ü \"β\" \\", lowPowerWarnings: 0, connects: 0,
                disconnects: 0, clockEpochs: 1, clockWraps: 0),
            capture: .init(datalink: nil, records: 0, bytes: 16, error: #"not a "btsnoop" capture \0 / é"#))
        #expect(report.directJSON().map { Data($0) } == (try report.encodedWithJSONEncoder()))

        let effort = ReplayReport.EffortReport(
            startS: 0, endS: 2.5, peakKg: 40, meanKg: 1e-7, timeToPeakS: 1e21, rfdKgS: nil, impulseKgS: -0.0,
            baselineKg: -0.0, openStart: true, open: false)
        report.recordings = [
            .init(startS: 0, endS: 3, maxKg: nil, avgKg: nil, falseStartsDropped: 2, efforts: []),
            .init(startS: 1, endS: 4, maxKg: 40, avgKg: 20.5, falseStartsDropped: 0, efforts: [effort, effort]),
        ]
        report.frames.malformed = ["short": 1, "wrong_handle": 3]
        #expect(report.directJSON().map { Data($0) } == (try report.encodedWithJSONEncoder()))
    }

    @Test("what the direct writer does not copy goes to JSONEncoder")
    func unrepresentableReportsFallBack() throws {
        var report = ReplayReport(
            samples: 0, frames: .init(total: 0, decoded: 0, dropped: 0, malformed: ["camelCase": 1]), recordings: [],
            forceHandle: .init(handle: "0x000e", source: "option"),
            device: .init(
                profile: "progressor", batteryMv: 3900, firmware: "tab\there", lowPowerWarnings: 0, connects: 0,
                disconnects: 0, clockEpochs: 1, clockWraps: 0),
            capture: .init(datalink: 2001, records: 0, bytes: 16, error: nil))
        #expect(report.directJSON() == nil)
        #expect(try report.jsonData() == report.encodedWithJSONEncoder())
        report.frames.malformed = [:]
        #expect(report.directJSON() == nil)  // the control character in the firmware string
        report.device.firmware = "1.2.3.4"
        #expect(report.directJSON().map { Data($0) } == (try report.encodedWithJSONEncoder()))
    }
}
