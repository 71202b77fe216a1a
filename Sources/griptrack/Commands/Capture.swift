import ArgumentParser
import Foundation
import GripSystem
import GripWire

extension Griptrack {
    /// `griptrack capture`: the radio's HCI traffic into a btsnoop file, as `btmon -w` would write it.
    struct Capture: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "capture",
            abstract: "Record the Bluetooth traffic to a btsnoop file for a field report.",
            discussion: """
                Reads the kernel's HCI monitor channel (what btmon reads) and writes every frame to FILE as a \
                btsnoop capture (datalink 2001, as `btmon -w` writes), until Ctrl-C, SIGTERM or --duration. \
                Attach the file to a report: `griptrack replay FILE` reads it back through the same pipeline as \
                the radio, and Wireshark and btmon -r open it too. The file is complete after every record, so \
                a capture cut short keeps everything before.

                With --device only that device's traffic is kept: its adverts, its connection and everything on \
                it, the commands that name it, and the adapter's own records; other devices' traffic never \
                reaches the file (docs/capture.md). Without it the file holds everything the adapter hears.

                Needs the CAP_NET_RAW capability: run it with sudo, or once \
                `sudo setcap cap_net_raw+ep $(command -v griptrack)`. Exits 4 when Bluetooth is unavailable or \
                not permitted, 1 when FILE cannot be written.
                """
        )

        @Option(name: .customShort("w"), help: ArgumentHelp("The btsnoop file to write (replaced if it exists).",
                                                             valueName: "file"))
        var file: String

        @Option(help: ArgumentHelp(
            "Keep only this device's traffic (AA:BB:CC:DD:EE:FF).", valueName: "address"))
        var device: AddressOption?

        @Option(help: ArgumentHelp("Keep only this adapter (0 for hci0); default: every adapter.", valueName: "n"))
        var index: UInt16?

        @Option(help: ArgumentHelp("Stop after this many seconds; default: until Ctrl-C.", valueName: "seconds"))
        var duration: Double?

        @Flag(help: "Print a JSON summary at the end instead of text.")
        var json = false

        func validate() throws {
            if let duration, !(duration > 0 && duration.isFinite) {
                throw ValidationError("--duration must be a positive number of seconds, such as 60.")
            }
        }

        func run() throws {
            // The file first, without truncating it: a path that cannot be written fails before anything opens.
            let output: CaptureWriter
            do throws(CaptureWriterError) {
                output = try CaptureWriter(path: file)
            } catch {
                throw CLIExit.error.fail("\(error)")
            }
            let socket: MonitorSocket
            do throws(MonitorSocketError) {
                socket = try MonitorSocket()
            } catch {
                output.discard()
                throw CLIExit.unavailable.fail(error.description)
            }
            output.handOverToSudoUser(environment: ProcessInfo.processInfo.environment)
            // From here on Ctrl-C and SIGTERM only stop the loop, which then closes the file.
            let interrupt = InterruptSignal()
            var capture = MonitorCapture(filter: CaptureFilter(device: device?.bytes, adapter: index))
            do throws(CaptureWriterError) {
                try output.start(header: MonitorCapture.fileHeader)
            } catch {
                output.discard()
                throw CLIExit.error.fail("\(error)")
            }

            let progress = isatty(STDERR_FILENO) == 1 ? CaptureProgress() : nil
            let end = Self.loop(
                socket: socket, output: output, capture: &capture, duration: duration, progress: progress,
                stopDescriptor: interrupt.readDescriptor, now: Self.nowMicros
            ) { _ in interrupt.drain() > 0 }
            progress?.finish()
            var stop = end.stop
            let writeError = end.writeError
            let readError = end.readError

            var closeError: CaptureWriterError?
            do throws(CaptureWriterError) { try output.close() } catch { closeError = error }
            if closeError != nil { stop = .error }
            let summary = CaptureRunReport(
                file: file, device: device?.text, index: index, counts: capture.counts,
                seconds: end.seconds, stop: stop)
            if json {
                try printJSON(summary)
            } else {
                print(summary.text)
            }
            if let writeError = writeError ?? closeError {
                throw CLIExit.error.fail("\(writeError); the records before it are in the file")
            }
            if let readError {
                throw CLIExit.unavailable.fail("\(readError) The capture stopped; the file holds what came before.")
            }
        }

        /// How the loop ended.
        struct LoopEnd {
            var stop: CaptureRunReport.Stop
            /// Seconds the loop ran (monotonic).
            var seconds: Double
            var writeError: CaptureWriterError?
            var readError: MonitorSocketError?
        }

        /// Reads frames until `shouldStop`, `duration` or an error, writing each kept one to `output`.
        ///
        /// Waits in `poll` on the socket and `stopDescriptor` (the signal pipe; -1 for none) at most 250 ms at a
        /// time, so `shouldStop`, the clock and the progress line are looked at a few times a second even when
        /// the radio is quiet, and at least every 1024 frames when it is busy.
        /// - Parameters:
        ///   - now: the host time to stamp a frame with, Unix µs.
        ///   - shouldStop: asked before each wait, with the counts so far.
        /// - Returns: why it ended, after how long, and the error that ended it.
        static func loop(
            socket: MonitorSocket, output: CaptureWriter, capture: inout MonitorCapture, duration: Double?,
            progress: CaptureProgress?, stopDescriptor: Int32, now: () -> Int64,
            shouldStop: (MonitorCapture.Counts) -> Bool
        ) -> LoopEnd {
            // The monotonic clock: a Pi without a real-time clock may jump years when NTP first answers.
            let clock = ContinuousClock()
            let started = clock.now
            let elapsed = { seconds(started.duration(to: clock.now)) }
            var end = LoopEnd(stop: .signal, seconds: 0)
            var descriptors = [
                pollfd(fd: socket.descriptor, events: Int16(POLLIN), revents: 0),
                pollfd(fd: stopDescriptor, events: Int16(POLLIN), revents: 0),
            ]
            loop: while true {
                if shouldStop(capture.counts) { break }
                var timeout = 250
                if let duration {
                    let left = duration - elapsed()
                    if left <= 0 {
                        end.stop = .duration
                        break
                    }
                    timeout = min(timeout, Int((left * 1000).rounded(.up)))
                }
                _ = SystemCall.poll(&descriptors, timeoutMilliseconds: Int32(timeout))
                // Drain what is waiting, but look at the stop condition and the clock at least every 1024 frames.
                for _ in 0..<1024 {
                    var record: [UInt8]?
                    do throws(MonitorSocketError) {
                        let gotFrame = try socket.readFrame { bytes in
                            record = capture.take(bytes, hostMicros: now())
                        }
                        if !gotFrame { break }
                    } catch {
                        end.readError = error
                        break loop
                    }
                    guard let record else { continue }
                    do throws(CaptureWriterError) {
                        try output.append(record)
                    } catch {
                        end.writeError = error
                        break loop
                    }
                }
                progress?.show(capture.counts, at: elapsed())
            }
            if end.readError != nil || end.writeError != nil { end.stop = .error }
            end.seconds = elapsed()
            return end
        }

        /// A duration in seconds.
        static func seconds(_ duration: Duration) -> Double {
            Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        }

        /// Now, Unix µs (the host time of a frame, as btmon stamps it when it reads).
        static func nowMicros() -> Int64 {
            var now = timespec()
            clock_gettime(CLOCK_REALTIME, &now)
            return Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1_000
        }
    }
}

/// `--device AA:BB:CC:DD:EE:FF`.
struct AddressOption: ExpressibleByArgument {
    /// Most significant byte first, as printed.
    var bytes: [UInt8]
    /// Upper case, colon-separated.
    var text: String { bytes.map { String(format: "%02X", $0) }.joined(separator: ":") }

    init?(argument: String) {
        guard let bytes = CaptureFilter.address(argument) else { return nil }
        self.bytes = bytes
    }
}

/// What `griptrack capture` did: the final line, or the `--json` object.
struct CaptureRunReport: Encodable {
    /// Why the capture ended.
    enum Stop: String, Encodable {
        case signal, duration, error
    }

    var file: String
    var device: String?
    var index: UInt16?
    var framesSeen: Int
    var framesKept: Int
    var malformedFrames: Int
    var bytesWritten: Int64
    var seconds: Double
    var stoppedBy: Stop

    init(file: String, device: String?, index: UInt16?, counts: MonitorCapture.Counts, seconds: Double, stop: Stop) {
        self.file = file
        self.device = device
        self.index = index
        framesSeen = counts.framesSeen
        framesKept = counts.framesKept
        malformedFrames = counts.malformedFrames
        bytesWritten = counts.fileBytes
        self.seconds = (seconds * 10).rounded() / 10
        stoppedBy = stop
    }

    var text: String {
        let malformed = malformedFrames > 0 ? " (\(malformedFrames) malformed, skipped)" : ""
        let which = device.map { " about \($0)" } ?? ""
        return """
            Captured \(framesKept) of \(framesSeen) frames\(which)\(malformed) into \(file): \(bytesWritten) bytes \
            in \(String(format: "%.1f", seconds)) s.
            Replay it with `griptrack replay \(file)`; attach the file to the report.
            """
    }
}

/// The progress line on a terminal: frames kept and seen, bytes written, redrawn at most four times a second.
final class CaptureProgress {
    /// When the line was last drawn, seconds since the capture started.
    private var last = -Double.infinity
    private var shown = false

    /// Redraws the line unless it was drawn less than 0.25 s ago.
    /// - Parameters:
    ///   - counts: the capture's counts.
    ///   - seconds: seconds since the capture started (monotonic).
    func show(_ counts: MonitorCapture.Counts, at seconds: Double) {
        guard seconds - last >= 0.25 else { return }
        last = seconds
        shown = true
        let line = "\rcapturing: \(counts.framesKept) of \(counts.framesSeen) frames kept, \(counts.fileBytes) bytes"
            + " (Ctrl-C stops)"
        FileHandle.standardError.write(Data(line.utf8))
    }

    func finish() {
        if shown { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
    }
}
