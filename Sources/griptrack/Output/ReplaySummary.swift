import Foundation
import GripReplay
import GripWire

/// The human summary printed at the end of `griptrack replay`.
struct ReplaySummary {
    let report: ReplayReport
    let path: String

    var text: String {
        var lines: [String] = []
        let format = switch report.capture.datalink {
        case 2001: "btmon"
        case 1002, 1001: "HCI log"
        default: "btsnoop"
        }
        lines.append("Replayed \(path) (\(format), \(report.capture.records) records, \(report.capture.bytes) bytes)")
        let handleSource = switch report.forceHandle.source {
        case "discovery": "(from the capture's GATT discovery)"
        case "option": "(from --handle)"
        default: DeviceProfiles.named(report.device.profile)?.dataServiceIsShared == true
            ? "(chosen by frame content: its generic UART's discovery does not identify the device)"
            : "(guessed from frame content: the capture has no GATT discovery)"
        }
        let profileName = DeviceProfiles.named(report.device.profile)?.name ?? report.device.profile
        var device = report.forceHandle.source == "advertisement"
            ? "\(profileName) from its advertisements (manufacturer data)"
            : "\(profileName) on handle \(report.forceHandle.handle) " + handleSource
        if let battery = report.device.batteryMv { device += ", battery \(battery) mV" }
        if let firmware = report.device.firmware { device += ", firmware \(firmware)" }
        lines.append(device)
        if let leftOut = report.device.timingLeftOut { lines.append(leftOut) }
        let malformed = report.frames.malformed.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }
        lines.append("\(report.samples) samples from \(report.frames.total) frames: \(report.frames.decoded) decoded, "
            + "\(report.frames.malformed.values.reduce(0, +)) malformed"
            + (malformed.isEmpty ? "" : " (\(malformed.joined(separator: ", ")))")
            + ", \(report.frames.dropped) dropped")
        var link: [String] = []
        if report.device.disconnects > 0 { link.append("\(report.device.disconnects) disconnect(s)") }
        if report.device.clockWraps > 0 { link.append("device clock wrapped \(report.device.clockWraps)×") }
        if let lost = report.device.lostReports, lost > 0 { link.append("\(lost) report(s) lost (the device's count)") }
        if report.device.clockEpochs > 1 { link.append("device clock restarted \(report.device.clockEpochs - 1)×") }
        if report.device.lowPowerWarnings > 0 { link.append("low-battery warning") }
        if !link.isEmpty { lines.append("Link: " + link.joined(separator: ", ")) }
        if report.recordings.isEmpty { lines.append("No efforts found.") }
        for (index, recording) in report.recordings.enumerated() {
            lines.append("")
            let strength = recording.maxKg.map {
                String(format: ", max %.1f kg, average %.1f kg", $0, recording.avgKg ?? $0)
            } ?? ""
            lines.append(String(
                format: "Recording %d: %.1f–%.1f s, %d efforts", index + 1, recording.startS, recording.endS,
                recording.efforts.count) + strength)
            if recording.falseStartsDropped > 0 {
                lines.append("  (\(recording.falseStartsDropped) false start(s) ignored)")
            }
            lines.append("   #   start     dur    peak    mean  to peak  RFD 20–80")
            for (number, effort) in recording.efforts.enumerated() {
                let rfd = effort.rfdKgS.map { String(format: "%6.1f kg/s", $0) } ?? "      —"
                let toPeak = effort.timeToPeakS.map { String(format: "%5.2f s ", $0) } ?? "     —  "
                lines.append(String(
                    format: "  %2d %6.1f s %5.1f s %5.1f kg %5.1f kg ",
                    number + 1, effort.startS, effort.endS - effort.startS, effort.peakKg, effort.meanKg)
                    + toPeak + rfd + (effort.open ? "  open (stream ended mid-effort)" : ""))
            }
            // A board's cells: where each effort's force went, and its left/right asymmetry.
            for (number, effort) in recording.efforts.enumerated() {
                guard let cells = effort.cells else { continue }
                let asymmetry = cells.asymmetry.map { String(format: ", asymmetry %+.1f %%", $0 * 100) } ?? ""
                lines.append(String(
                    format: "  %2d cells: left %.1f kg, centre %.1f kg, right %.1f kg (means)", number + 1,
                    cells.leftMeanKg, cells.centreMeanKg, cells.rightMeanKg) + asymmetry)
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
