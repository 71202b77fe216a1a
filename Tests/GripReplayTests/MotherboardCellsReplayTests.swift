import Foundation
import GripReplay
import GripTestSupport
import Testing

/// The Motherboard's cells as far as the replay report: each effort's left, centre and right means and asymmetry, and
/// the reports its sample number says were lost (docs/replay-json.md, docs/devices.md "Griptonite Motherboard").
@Suite("Motherboard cells in replay")
struct MotherboardCellsReplayTests {
    @Test("the simulated hangs put 46/10/44 % on left, centre and right: asymmetry (46 − 44) / 90, one report lost")
    func cellsAndLostReports() throws {
        let report = try ReplayReport.replaying(path: CaptureFixtures.url("motherboard-hangs.btsnoop").path)
        #expect(report.device.profile == "motherboard")
        #expect(report.device.lostReports == 1)
        let efforts = report.recordings.flatMap(\.efforts)
        try #require(efforts.count == 3)
        for effort in efforts {
            let cells = try #require(effort.cells)
            let total = cells.leftMeanKg + cells.centreMeanKg + cells.rightMeanKg
            // The resting baseline is shared the same way, so the shares hold for the means whatever it is.
            #expect(abs(cells.leftMeanKg / total - 0.46) < 0.002 && abs(cells.rightMeanKg / total - 0.44) < 0.002)
            #expect(abs((cells.asymmetry ?? 0) - 0.02 / 0.90) < 0.001)
        }
        // The 120 kg hang loads the left cell past the table's last point (50 kg): extrapolated, not read as 0.
        #expect(efforts[1].peakKg > 115)
    }

    @Test("a one-cell device's report has no cells and no lost-report count")
    func otherDevicesHaveNone() throws {
        let report = try ReplayReport.replaying(path: CaptureFixtures.url("entralpi-pulls.btsnoop").path)
        #expect(report.device.lostReports == nil)
        #expect(report.recordings.flatMap(\.efforts).allSatisfy { $0.cells == nil })
    }
}
