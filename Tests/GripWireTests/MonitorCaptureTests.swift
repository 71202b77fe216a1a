import GripSimulator
import GripTestSupport
import GripWire
import Testing

/// `MonitorCapture`: monitor frames → filter → btsnoop file, checked against the simulator's own capture.
@Suite("capture from the monitor channel")
struct MonitorCaptureTests {
    typealias Fixtures = MonitorFrameFixtures

    /// The demo session (btmon layout) and the same session with a stranger's traffic woven in.
    static func session() throws -> (original: [UInt8], frames: [TimedFrame]) {
        let entry = try #require(CaptureCatalog.all.first { $0.name == "progressor-repeaters" })
        #expect(entry.session.datalink == .linuxMonitor)
        let original = entry.session.render()
        let base = Fixtures.frames(fromBtsnoop: original)
        let stranger = Fixtures.strangerTraffic(startMicros: entry.session.startMicros + 2_000_000)
        return (original, Fixtures.interleave(base, with: stranger))
    }

    static func capture(_ frames: [TimedFrame], filter: CaptureFilter) -> (file: [UInt8], capture: MonitorCapture) {
        var capture = MonitorCapture(filter: filter)
        var file = MonitorCapture.fileHeader
        for frame in frames {
            if let record = capture.take(frame.bytes, hostMicros: frame.hostMicros) { file += record }
        }
        return (file, capture)
    }

    @Test("with --device the file is byte for byte the simulator's capture: the stranger is gone")
    func deviceFilterRestoresTheOriginal() throws {
        let (original, frames) = try Self.session()
        let (file, capture) = Self.capture(frames, filter: CaptureFilter(device: Fixtures.progressor))
        #expect(file == original)
        #expect(capture.counts.framesSeen == frames.count)
        #expect(capture.counts.framesKept == Fixtures.frames(fromBtsnoop: original).count)
        #expect(capture.counts.fileBytes == Int64(file.count))
        #expect(capture.filter.malformedPackets == 0)
        #expect(!Fixtures.contains(file, Array(Fixtures.stranger.reversed())))
        #expect(!Fixtures.contains(file, Array("C0:FF:EE".utf8)))
        // No event of the parsed file is on the stranger's handle.
        let outcome = feedWhole(file)
        #expect(outcome.error == nil)
        #expect(!outcome.events.contains { event in
            switch event {
            case .connected(let link, _, _), .disconnected(let link, _, _), .mtuExchanged(let link, _, _),
                 .notification(let link, _, _, _), .write(let link, _, _, _):
                link.connection == Fixtures.strangerHandle
            case .advertisement(_, let address, _, _, _):
                address == Fixtures.stranger
            }
        })
    }

    @Test("without --device every frame is written, as the interleaved capture would be")
    func everythingWithoutDevice() throws {
        let (_, frames) = try Self.session()
        let (file, capture) = Self.capture(frames, filter: CaptureFilter())
        var expected = BtsnoopWriter(datalink: .linuxMonitor)
        for frame in frames {
            let parsed = try MonitorFrame(parsing: frame.bytes)
            expected.appendRecord(flags: parsed.btsnoopFlags, payload: parsed.payload, hostMicros: frame.hostMicros)
        }
        #expect(file == expected.bytes)
        #expect(capture.counts.framesKept == frames.count)
        // The Progressor's events are all there, in order, among the stranger's.
        let original = feedWhole(try Self.session().original)
        let everything = feedWhole(file)
        #expect(everything.notifications.filter { $0.handle == 0x000E }.map(\.value)
            == original.notifications.filter { $0.handle == 0x000E }.map(\.value))
    }

    @Test("malformed reads are counted and skipped; the capture goes on")
    func malformedReadsAreCounted() throws {
        let (original, frames) = try Self.session()
        var broken = frames
        broken.insert(TimedFrame(bytes: [0x03, 0x00], hostMicros: 0), at: 10)
        broken.insert(TimedFrame(bytes: [0x03, 0x00, 0x00, 0x00, 0x40, 0x00, 0x0E], hostMicros: 0), at: 20)
        broken.insert(TimedFrame(bytes: [], hostMicros: 0), at: 30)
        let (file, capture) = Self.capture(broken, filter: CaptureFilter(device: Fixtures.progressor))
        #expect(file == original)
        #expect(capture.counts.malformedFrames == 3)
        #expect(capture.counts.framesSeen == broken.count)
        #expect(capture.lastMalformed == .shortHeader(bytesPresent: 0))
    }

    @Test("the streaming header and records are what BtsnoopWriter builds in memory")
    func streamingMatchesWriter() {
        var writer = BtsnoopWriter(datalink: .linuxMonitor)
        writer.appendRecord(flags: 0x0002_0003, payload: [0x0E, 0x01, 0x00], hostMicros: 1_700_000_000_123_456)
        let streamed = BtsnoopWriter.fileHeader(datalink: .linuxMonitor)
            + BtsnoopWriter.record(flags: 0x0002_0003, payload: [0x0E, 0x01, 0x00], hostMicros: 1_700_000_000_123_456)
        #expect(streamed == writer.bytes)
        // Host time is µs since 0000-01-01: 2023-11-14T22:13:20.123456Z.
        #expect(Array(streamed[32..<40]) == [0x00, 0xE2, 0xE7, 0xD7, 0x27, 0x4F, 0xA2, 0x40])
    }
}
