import Foundation
import GripAnalysis

/// The full-screen view of `griptrack record`: a pure function of the state and the terminal size, so it is
/// tested as text. The terminal side (alternate screen, cursor, pacing) is `TerminalScreen`.
enum RecordScreen {
    /// Renders the screen: at most `height` lines, none longer than `width` characters, joined by "\n".
    ///
    /// Top to bottom: title and elapsed time, the plan, the device, the force bar, current and peak force, the
    /// efforts so far (the newest that fit), and the key hint. When the terminal is short, older efforts go first.
    static func render(_ state: RecordState, width: Int, height: Int) -> String {
        let width = max(20, width)
        let height = max(6, height)
        var top: [String] = []
        let title = state.started
            ? (state.saving ? "griptrack record · recording" + (state.recordingID.map { " #\($0)" } ?? "")
                : "griptrack record · live view, not saved")
            : "griptrack record · starting"
        let clock = Format.clock(state.elapsed)
        top.append(fit(title, width: width - clock.count - 1).rightPadded(width - clock.count) + clock)
        if let access = state.access { top.append(access) }
        top += wrap(deviceParts(state.device), width: width, prefix: "Device: ")
        if let notice = state.notice { top.append("Recorder: not stored: \(notice)") }
        top.append("")
        top.append(bar(state, width: width))
        var forces = "now \(Format.kg(state.currentKg))   peak \(Format.kg(state.peakKg))"
        if state.effortInProgress != nil { forces += "   pulling" }
        top.append(forces)
        if let run = state.run, let cue = state.cue { top.append(run.text(cue)) }
        top.append("")
        if state.efforts.isEmpty {
            top.append("No efforts yet: pull to start one.")
        } else {
            let summary = "Efforts: \(state.efforts.count)   max \(Format.kg(state.maxKg))   average \(Format.kg(state.averageKg))"
            top.append(summary.count <= width ? summary
                : "Efforts: \(state.efforts.count) · max \(Format.kg(state.maxKg)) · avg \(Format.kg(state.averageKg))")
        }
        let footer = state.stopping ? "Stopping…" : "Ctrl-C stops the recording."

        // Short terminal: the spacer lines go before any effort does.
        if top.count + 2 + (state.efforts.isEmpty ? 0 : state.efforts.count + 1) > height { top.removeAll { $0.isEmpty } }
        var lines = top.map { fit($0, width: width) }
        // Efforts table: header plus the newest rows that fit above the blank line and the footer.
        let room = height - lines.count - 2
        if !state.efforts.isEmpty, room >= 2 {
            lines.append(fit("   #      peak      mean    time", width: width))
            for effort in state.efforts.suffix(room - 1) {
                let row = String(effort.index).leftPadded(4) + Format.kg(effort.peakKg).leftPadded(10)
                    + Format.kg(effort.meanKg).leftPadded(10) + String(format: "%.1f s", effort.duration).leftPadded(8)
                    + (effort.open ? "  open" : "")
                lines.append(fit(row, width: width))
            }
        }
        lines = Array(lines.prefix(height - 2))
        lines.append("")
        lines.append(fit(footer, width: width))
        return lines.joined(separator: "\n")
    }

    /// `▕██████····▏ 30 kg`: the current force against the bar's scale.
    static func bar(_ state: RecordState, width: Int) -> String {
        let label = " \(Int(state.barScaleKg)) kg"
        let cells = max(4, width - 2 - label.count)
        let fraction = max(0, min(1, state.currentKg / state.barScaleKg))
        let filled = Int((fraction * Double(cells)).rounded())
        return "▕" + String(repeating: "█", count: filled) + String(repeating: "·", count: cells - filled) + "▏" + label
    }

    /// The device line's parts: state, name, address, battery, source (unless BlueZ).
    static func deviceParts(_ device: RecordState.Device) -> [String] {
        var parts = [device.state ?? "unknown"]
        if let name = device.name { parts.append(name) }
        if let address = device.address { parts.append(address) }
        if let millivolts = device.batteryMillivolts { parts.append("battery " + RecordState.volts(millivolts)) }
        if let source = device.source, source != "bluez" { parts.append("source \(source)") }
        return parts
    }

    /// Joins parts with " · " into as few lines as fit; continuation lines are indented under the prefix.
    static func wrap(_ parts: [String], width: Int, prefix: String) -> [String] {
        var lines: [String] = []
        var current = prefix
        var empty = true
        for part in parts {
            let candidate = empty ? current + part : current + " · " + part
            if candidate.count <= width || empty {
                current = candidate
            } else {
                lines.append(current)
                current = String(repeating: " ", count: prefix.count) + part
            }
            empty = false
        }
        lines.append(current)
        return lines
    }

    /// Cuts a line to `width` characters, ending in "…" when cut.
    static func fit(_ line: String, width: Int) -> String {
        guard line.count > width else { return line }
        return String(line.prefix(max(0, width - 1))) + "…"
    }
}

extension Format {
    /// `0:42`, `12:05`: minutes and seconds of a running clock.
    static func clock(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded(.down))
        return String(format: "%d:%02d", whole / 60, whole % 60)
    }
}
