import Foundation
import Glibc
import GripTestSupport
import GripWire
import Testing

@testable import griptrack

/// `griptrack capture`'s read loop, in process: no machine here has a Bluetooth controller, so an `AF_UNIX`
/// `SOCK_SEQPACKET` pair stands in for the monitor socket (one frame per `recv`, as the monitor channel gives).
@Suite("capture loop")
struct CaptureLoopTests {
    typealias Fixtures = MonitorFrameFixtures
    static let hostMicros: Int64 = 1_795_000_000_000_000

    static func socketPair() throws -> (reader: Int32, writer: Int32) {
        var descriptors: [Int32] = [-1, -1]
        let result = socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &descriptors)
        try #require(result == 0, "socketpair: errno \(errno)")
        return (descriptors[0], descriptors[1])
    }

    static func temporaryFile() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("griptrack-capture-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory.appendingPathComponent("session.btsnoop")
    }

    @Test("frames on the socket reach the file as MonitorCapture writes them; the loop stops when told")
    func framesReachTheFile() throws {
        let original = try CaptureFixtures.bytes("progressor-repeaters.btsnoop")
        let base = Array(Fixtures.frames(fromBtsnoop: original).prefix(60))
        var frames = Fixtures.interleave(base, with: Fixtures.strangerTraffic(startMicros: 0)).map(\.bytes)
        frames.insert([0x03, 0x00], at: 5)  // a read too short for a header: counted, skipped
        let (reader, writer) = try Self.socketPair()
        defer { close(writer) }
        // Fewer than a hundred small frames: they fit in the pair's buffer, so no sending thread is needed.
        for frame in frames {
            #expect(frame.withUnsafeBytes { send(writer, $0.baseAddress, $0.count, 0) } == frame.count)
        }
        let url = try Self.temporaryFile()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let output = try CaptureWriter(path: url.path)
        try output.start(header: MonitorCapture.fileHeader)
        var capture = MonitorCapture(filter: CaptureFilter(device: Fixtures.progressor))

        let end = Griptrack.Capture.loop(
            socket: MonitorSocket(adopting: reader), output: output, capture: &capture, duration: 30, progress: nil,
            stopDescriptor: -1, now: { Self.hostMicros }
        ) { $0.framesSeen == frames.count }
        try output.close()

        #expect(end.stop == .signal)
        #expect(end.seconds < 10)
        #expect(end.readError == nil && end.writeError == nil)
        var expected = MonitorCapture(filter: CaptureFilter(device: Fixtures.progressor))
        var expectedFile = MonitorCapture.fileHeader
        for frame in frames {
            if let record = expected.take(frame, hostMicros: Self.hostMicros) { expectedFile += record }
        }
        #expect(Array(try Data(contentsOf: url)) == expectedFile)
        #expect(capture.counts == expected.counts)
        #expect(capture.counts.malformedFrames == 1)
        #expect(capture.counts.framesKept == base.count)
    }

    @Test("--duration ends a quiet capture, leaving a file with the header only")
    func durationEndsAQuietCapture() throws {
        let (reader, writer) = try Self.socketPair()
        defer { close(writer) }
        let url = try Self.temporaryFile()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let output = try CaptureWriter(path: url.path)
        try output.start(header: MonitorCapture.fileHeader)
        var capture = MonitorCapture(filter: CaptureFilter())

        let end = Griptrack.Capture.loop(
            socket: MonitorSocket(adopting: reader), output: output, capture: &capture, duration: 0.3, progress: nil,
            stopDescriptor: -1, now: { Self.hostMicros }
        ) { _ in false }
        try output.close()

        #expect(end.stop == .duration)
        #expect(end.seconds >= 0.3 && end.seconds < 5)
        #expect(Array(try Data(contentsOf: url)) == MonitorCapture.fileHeader)
        #expect(capture.counts.framesSeen == 0)
    }

    @Test("the summary says how much was kept, where, and how to replay it")
    func summaryText() {
        var counts = MonitorCapture.Counts()
        counts.framesSeen = 11530
        counts.framesKept = 8412
        counts.malformedFrames = 2
        counts.fileBytes = 412_337
        let summary = CaptureRunReport(
            file: "session.btsnoop", device: "F0:0D:CA:FE:12:34", index: nil, counts: counts, seconds: 95.24,
            stop: .signal)
        #expect(summary.text == """
            Captured 8412 of 11530 frames about F0:0D:CA:FE:12:34 (2 malformed, skipped) into session.btsnoop: \
            412337 bytes in 95.2 s.
            Replay it with `griptrack replay session.btsnoop`; attach the file to the report.
            """)
    }
}
