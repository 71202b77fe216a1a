import Foundation
import GripAnalysis
import GripStream

/// The live readout of a replay or recording on a terminal: a force bar with current and peak force, redrawn at
/// most 25 times a second, and one line per effort as it closes.
///
/// - Important: called on the pipeline's consumer thread only.
final class LiveReadout {
    private var current: Float = 0
    private var sessionPeak: Float = 0
    private var firstMicros: Int64?
    private var latestMicros: Int64 = 0
    private var efforts = 0
    private var lastDraw: UInt64 = 0
    private var barScale: Float = 30

    /// A live view only makes sense on a terminal, paced, and without --json.
    static func isWanted(speed: ReplaySpeed, json: Bool) -> Bool {
        guard !json, speed != .max else { return false }
        return isatty(STDOUT_FILENO) == 1
    }

    func show(_ output: StreamOutput) {
        switch output {
        case .sample(let micros, let kilograms):
            if firstMicros == nil { firstMicros = micros }
            latestMicros = micros
            current = kilograms
            sessionPeak = max(sessionPeak, kilograms)
            // Rescale in steps so the bar does not jitter.
            while sessionPeak > barScale { barScale += 10 }
            drawIfDue()
        case .segment(.effortEnded(let effort)):
            efforts += 1
            let flag = effort.open ? "  (open: stream ended mid-effort)" : ""
            let line = String(
                format: "effort %2d  peak %5.1f kg  mean %5.1f kg  %4.1f s",
                efforts, effort.peakKg, effort.meanKg, Double(effort.durationMicros) / 1e6) + flag
            write("\r\u{1B}[K" + line + "\n")
            draw()
        case .segment(.recordingStarted):
            write("\r\u{1B}[K── recording started ──\n")
        case .segment(.recordingEnded(let recording)):
            let summary = recording.maxKg.map {
                String(format: "max %.1f kg, average %.1f kg", $0, recording.averageKg ?? $0)
            } ?? "no complete effort"
            write("\r\u{1B}[K── recording ended: " + summary + " ──\n")
        case .device(.lowPowerWarning):
            write("\r\u{1B}[K!! device reports low battery; it will disconnect\n")
        case .link(let up, _):
            write("\r\u{1B}[K" + (up ? "link up\n" : "link lost\n"))
        case .segment, .device, .cells:
            break
        }
    }

    func finish() { write("\r\u{1B}[K") }

    private func drawIfDue() {
        let now = DispatchTime.now().uptimeNanoseconds
        if now - lastDraw >= 40_000_000 { draw() }
    }

    private func draw() {
        lastDraw = DispatchTime.now().uptimeNanoseconds
        let width = 40
        let filled = max(0, min(width, Int((current / barScale * Float(width)).rounded())))
        let bar = String(repeating: "█", count: filled) + String(repeating: "·", count: width - filled)
        let elapsed = Double(latestMicros - (firstMicros ?? latestMicros)) / 1e6
        write("\r\u{1B}[K▕" + bar + "▏" + String(format: " %5.1f kg   peak %5.1f kg   %6.1f s   %d efforts",
                                                     current, sessionPeak, elapsed, efforts))
    }

    private func write(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }
}
