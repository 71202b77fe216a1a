import Foundation
import GripStream
import GripTestSupport
import GripWire
import Testing

@Suite("CaptureFile.read")
struct CaptureFileReaderTests {
    static let files = ["third-party/revcar-android-h4.btsnoop", "third-party/revcar-monitor-2001.btsnoop"]

    @Test("reading from disk in any chunk size gives the same events and summary as parsing in memory",
          arguments: files, [1, 7, 24, 4096, 65536])
    func matchesInMemoryParsing(file: String, chunkSize: Int) throws {
        let expected = feedWhole(try CaptureFixtures.bytes(file))
        var events: [CaptureEvent] = []
        let summary = try CaptureFile.read(path: CaptureFixtures.url(file).path, chunkSize: chunkSize) {
            events.append($0)
        }
        #expect(events == expected.events)
        #expect(events.count { if case .notification = $0 { true } else { false } } == 6)
        #expect(summary.records == expected.recordsRead)
        #expect(summary.bytes == expected.bytesConsumed)
        #expect(summary.gatt == expected.gatt)
        #expect(summary.firstRecordMicros == 1_617_571_940_801_683)
        #expect(summary.datalink == (file.contains("2001") ? .linuxMonitor : .hciUART))
    }

    @Test("a missing file is an io error naming the path and the system's reason")
    func missingFile() {
        let path = "/nonexistent/griptrack/missing.btsnoop"
        #expect(throws: CaptureError(.io("cannot open \(path): No such file or directory"), byteOffset: 0)) {
            _ = try CaptureFile.read(path: path) { _ in }
        }
    }

    @Test("a directory is an io error, not a crash")
    func directory() {
        do {
            _ = try CaptureFile.read(path: "/tmp") { _ in }
            Issue.record("reading a directory succeeded")
        } catch {
            guard case .io(let reason) = error.kind else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(reason == "cannot read /tmp: Is a directory")
        }
    }

    @Test("a file cut inside a record throws truncation after emitting the earlier records' events")
    func truncatedFileOnDisk() throws {
        let bytes = try CaptureFixtures.bytes(Self.files[0])
        let cut = Array(bytes.prefix(bytes.count - 3))
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("griptrack-truncated-\(ProcessInfo.processInfo.processIdentifier).btsnoop").path
        try Data(cut).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }

        var events: [CaptureEvent] = []
        do {
            _ = try CaptureFile.read(path: path, chunkSize: 100) { events.append($0) }
            Issue.record("a truncated file was accepted")
        } catch {
            #expect(error.kind == .truncatedRecord)
            #expect(error.recordNumber == 149)
            #expect(events == feedWhole(cut).events)
            #expect(events.count { if case .notification = $0 { true } else { false } } == 6)
        }
    }
}
