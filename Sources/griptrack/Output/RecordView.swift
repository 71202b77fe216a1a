import Foundation
import Glibc
import GripProtocol

/// Where `griptrack record` shows what happens: a full screen on a terminal, plain lines otherwise, or JSON lines.
protocol RecordView: AnyObject {
    /// Called for every message after the state folded it; `lines` are the plain lines the fold produced.
    func show(_ message: DaemonMessage, line: String, state: RecordState, lines: [String])
    /// Whether `redraw` has something new to draw.
    var needsRedraw: Bool { get }
    /// Draws the state (full screen only; called at most 25 times a second).
    func redraw(_ state: RecordState)
    /// Restores the terminal. Idempotent; called on every exit path.
    func close()
}

extension RecordView {
    var needsRedraw: Bool { false }
    func redraw(_ state: RecordState) {}
    func close() {}
}

/// The full-screen readout: the alternate screen with the cursor hidden, `RecordScreen` redrawn on change.
final class FullScreenView: RecordView {
    private var dirty = true
    private var isOpen = true
    private var bellsRung = 0

    /// Whether standard output is a terminal (the full screen only makes sense there).
    static var isWanted: Bool { isatty(STDOUT_FILENO) == 1 }

    init() {
        write("\u{1B}[?1049h\u{1B}[?25l\u{1B}[H\u{1B}[2J")
    }

    func show(_ message: DaemonMessage, line: String, state: RecordState, lines: [String]) {
        switch message {
        case .watch, .unknown, .recording, .tare, .pro: break
        default: dirty = true
        }
    }

    var needsRedraw: Bool { dirty }

    func redraw(_ state: RecordState) {
        guard isOpen else { return }
        dirty = false
        let (width, height) = Self.size()
        let screen = RecordScreen.render(state, width: width, height: height)
        // The bell marks each hang's start and end (record --protocol).
        if state.bells > bellsRung {
            bellsRung = state.bells
            write("\u{7}")
        }
        write("\u{1B}[H" + screen.split(separator: "\n", omittingEmptySubsequences: false).joined(separator: "\u{1B}[K\r\n")
                + "\u{1B}[K\u{1B}[J")
    }

    func close() {
        guard isOpen else { return }
        isOpen = false
        write("\u{1B}[?25h\u{1B}[?1049l")
    }

    deinit { close() }

    /// The terminal's columns and rows (80×24 when unknown).
    static func size() -> (width: Int, height: Int) {
        var size = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0, size.ws_row > 0 else {
            return (80, 24)
        }
        return (Int(size.ws_col), Int(size.ws_row))
    }

    private func write(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }
}

/// Plain lines for a pipe or a log: the start, one line per effort, device changes.
final class PlainView: RecordView {
    func show(_ message: DaemonMessage, line: String, state: RecordState, lines: [String]) {
        var out = lines
        if case .record(let reply) = message, reply.event == "started" {
            if state.saving {
                out.insert(
                    "Recording" + (state.recordingID.map { " #\($0)" } ?? "")
                        + (state.access.map { " (\($0))" } ?? "") + ". Ctrl-C stops it.", at: 0)
            } else {
                out.insert("Live view, not saved (--no-save). Ctrl-C stops it.", at: 0)
            }
        }
        guard !out.isEmpty else { return }
        FileHandle.standardOutput.write(Data(out.map { $0 + "\n" }.joined().utf8))
    }
}

/// `--json`: the daemon's own lines for RECORD, EFFORT, RECORDING, DEVICE, RECORDER and the final STOP, one JSON
/// object per line (SAMPLES are left out).
final class JSONLinesView: RecordView {
    func show(_ message: DaemonMessage, line: String, state: RecordState, lines: [String]) {
        switch message {
        case .record, .effort, .recording, .device, .recorder, .stop:
            FileHandle.standardOutput.write(Data((line + "\n").utf8))
        default:
            break
        }
    }
}
