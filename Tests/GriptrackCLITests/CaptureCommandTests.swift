import Foundation
import GripTestSupport
import GripWire
import Testing

/// `griptrack capture`: refusals without Bluetooth or a writable file, and its files replaying like the radio.
@Suite("griptrack capture")
struct CaptureCommandTests {
    typealias Fixtures = MonitorFrameFixtures

    @Test("capture --help says what the file is for and how to read it back")
    func help() async throws {
        let runner = try CLIRunner()
        defer { runner.cleanUp() }
        let result = try await runner.run(["capture", "--help"])
        #expect(result.status == 0)
        #expect(result.stdout == """
            OVERVIEW: Record the Bluetooth traffic to a btsnoop file for a field report.

            Reads the kernel's HCI monitor channel (what btmon reads) and writes every
            frame to FILE as a btsnoop capture (datalink 2001, as `btmon -w` writes), until
            Ctrl-C, SIGTERM or --duration. Attach the file to a report: `griptrack replay
            FILE` reads it back through the same pipeline as the radio, and Wireshark and
            btmon -r open it too. The file is complete after every record, so a capture cut
            short keeps everything before.

            With --device only that device's traffic is kept: its adverts, its connection
            and everything on it, the commands that name it, and the adapter's own records;
            other devices' traffic never reaches the file (docs/capture.md). Without it the
            file holds everything the adapter hears.

            Needs the CAP_NET_RAW capability: run it with sudo, or once `sudo setcap
            cap_net_raw+ep $(command -v griptrack)`. Exits 4 when Bluetooth is unavailable
            or not permitted, 1 when FILE cannot be written.

            USAGE: griptrack capture -w <file> [--device <address>] [--index <n>] [--duration <seconds>] [--json]

            OPTIONS:
              -w <file>               The btsnoop file to write (replaced if it exists).
              --device <address>      Keep only this device's traffic (AA:BB:CC:DD:EE:FF).
              --index <n>             Keep only this adapter (0 for hci0); default: every
                                      adapter.
              --duration <seconds>    Stop after this many seconds; default: until Ctrl-C.
              --json                  Print a JSON summary at the end instead of text.
              --version               Show the version.
              -h, --help              Show help information.


            """)
    }

    @Test("without kernel Bluetooth or CAP_NET_RAW it exits 4, says what to do, and leaves no file")
    func noBluetoothExits4() async throws {
        let runner = try CLIRunner()
        defer { runner.cleanUp() }
        let path = runner.home.appendingPathComponent("session.btsnoop").path
        let result = try await runner.run(["capture", "-w", path, "--duration", "1"])
        // No machine that runs the tests has a controller; a container has no AF_BLUETOOTH at all, a user
        // without the capability gets EPERM. Either way: exit 4 and the way out.
        #expect(result.status == 4, "\(result)")
        #expect(result.stdout == "")
        let noKernel = result.stderr.hasPrefix("griptrack: this kernel has no Bluetooth support (socket(AF_BLUETOOTH): ")
            && result.stderr.contains("`sudo modprobe bluetooth`")
        let noCapability = result.stderr.hasPrefix(
            "griptrack: reading the kernel's Bluetooth monitor needs the CAP_NET_RAW capability (")
            && result.stderr.contains("`sudo setcap cap_net_raw+ep $(command -v griptrack)`")
        #expect(noKernel || noCapability, "\(result)")
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test("an existing file is left alone when the capture cannot start")
    func existingFileUntouched() async throws {
        let runner = try CLIRunner()
        defer { runner.cleanUp() }
        let path = runner.home.appendingPathComponent("keep.btsnoop").path
        try Data("earlier report".utf8).write(to: URL(fileURLWithPath: path))
        let result = try await runner.run(["capture", "-w", path])
        #expect(result.status == 4, "\(result)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data("earlier report".utf8))
    }

    @Test("a file that cannot be written exits 1 naming it and the reason")
    func unwritableFileExits1() async throws {
        let runner = try CLIRunner()
        defer { runner.cleanUp() }
        let path = runner.home.appendingPathComponent("missing/session.btsnoop").path
        let result = try await runner.run(["capture", "-w", path])
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr == "griptrack: cannot write the capture to \(path): No such file or directory\n")
        let directory = try await runner.run(["capture", "-w", runner.home.path])
        #expect(directory.status == 1, "\(directory)")
        #expect(directory.stderr.hasPrefix("griptrack: cannot write the capture to \(runner.home.path): "))
    }

    @Test("usage errors exit 2", arguments: [
        ["capture"], ["capture", "-w", "x.btsnoop", "--device", "F4:D3:6B"],
        ["capture", "-w", "x.btsnoop", "--duration", "0"], ["capture", "-w", "x.btsnoop", "--index", "-1"],
    ])
    func usageErrors(arguments: [String]) async throws {
        let runner = try CLIRunner()
        defer { runner.cleanUp() }
        let result = try await runner.run(arguments)
        #expect(result.status == 2, "\(result)")
    }

    // Only with --device: replay takes every connection in a file for the device's, so an unfiltered capture that
    // holds a stranger's connection replays with its connect and disconnect too (docs/capture.md).
    @Test("a --device capture of the demo session among a stranger's traffic replays to the same recordings")
    func captureReplaysLikeTheOriginal() async throws {
        let runner = try CLIRunner()
        defer { runner.cleanUp() }
        let originalPath = CaptureFixtures.url("progressor-repeaters.btsnoop").path
        let original = try CaptureFixtures.bytes("progressor-repeaters.btsnoop")
        let base = Fixtures.frames(fromBtsnoop: original)
        let frames = Fixtures.interleave(
            base, with: Fixtures.strangerTraffic(startMicros: base[0].hostMicros + 2_000_000))
        var capture = MonitorCapture(filter: CaptureFilter(device: Fixtures.progressor))
        var file = MonitorCapture.fileHeader
        for frame in frames {
            if let record = capture.take(frame.bytes, hostMicros: frame.hostMicros) { file += record }
        }
        let path = runner.home.appendingPathComponent("captured.btsnoop").path
        try Data(file).write(to: URL(fileURLWithPath: path))

        let expected = try await runner.run(["replay", originalPath, "--json"])
        let replayed = try await runner.run(["replay", path, "--json"])
        #expect(expected.status == 0, "\(expected)")
        #expect(replayed.status == 0, "\(replayed)")
        let before = try Self.object(expected.stdout)
        let after = try Self.object(replayed.stdout)
        for key in ["recordings", "samples", "force_handle", "device"] {
            #expect(after[key] == before[key], "\(key)")
        }
        #expect(!Self.strangerAppears(in: file))
        #expect(capture.counts.framesKept < frames.count)
    }

    /// Whether the stranger's address, or an ACL packet on its handle, is in the file.
    static func strangerAppears(in file: [UInt8]) -> Bool {
        let frames = Fixtures.frames(fromBtsnoop: file).compactMap { try? MonitorFrame(parsing: $0.bytes) }
        let onHandle = frames.contains { frame in
            (frame.opcode == .aclReceived || frame.opcode == .aclSent)
                && frame.payload.count >= 2 && UInt16(frame.payload[0]) | UInt16(frame.payload[1] & 0x0F) << 8
                == Fixtures.strangerHandle
        }
        return onHandle || Fixtures.contains(file, Array(Fixtures.stranger.reversed()))
    }

    /// A replay's JSON object, each top-level value re-encoded canonically for comparison.
    static func object(_ text: String) throws -> [String: String] {
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        var result: [String: String] = [:]
        for (key, value) in object {
            let data = try JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .fragmentsAllowed])
            result[key] = String(decoding: data, as: UTF8.self)
        }
        return result
    }
}
