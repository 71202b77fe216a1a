// libFuzzer harness for `griptrack capture`'s pure core: monitor-channel reads → MonitorFrame → CaptureFilter →
// btsnoop records (docs/fuzzing.md). The filter parses advertising reports and events that any radio in range can
// shape, so it is input from strangers like a capture file.
//
// Input: one mode byte (bit 0: filter for device F4:D3:6B:4A:17:19; bit 1: only adapter 0), then reads, each a
// little-endian u16 length and that many bytes. Besides "never traps" it checks that the file written parses back
// as a capture with exactly the records kept, and that filtering the kept frames again keeps them unchanged.

import FuzzSupport
import GripWire

let device: [UInt8] = [0xF4, 0xD3, 0x6B, 0x4A, 0x17, 0x19]  // the simulated Progressor (the seeds' device)

fuzzMain { data, size in
    var input = ByteReader(fuzzInput(data, size))
    let mode = input.byte()
    let filter = CaptureFilter(device: mode & 1 != 0 ? device : nil, adapter: mode & 2 != 0 ? 0 : nil)
    var capture = MonitorCapture(filter: filter)
    var again = filter
    var file = MonitorCapture.fileHeader
    var kept: [MonitorFrame] = []
    var hostMicros: Int64 = 1_795_000_000_000_000
    var firstPass = filter
    while !input.isAtEnd {
        let read = input.bytes(Int(input.integer(width: 2)))
        hostMicros += 12_500
        if let record = capture.take(read, hostMicros: hostMicros) { file += record }
        if let frame = try? MonitorFrame(parsing: read), let out = firstPass.filter(frame) { kept.append(out) }
    }
    if capture.counts.fileBytes != Int64(file.count) {
        fuzzFailure("fileBytes \(capture.counts.fileBytes) but \(file.count) bytes written")
    }
    if capture.counts.framesKept != kept.count {
        fuzzFailure("MonitorCapture kept \(capture.counts.framesKept) frames, the filter alone \(kept.count)")
    }
    var parser = BtsnoopParser()
    do {
        try file.withUnsafeBytes { bytes in try parser.feed(bytes) { _ in } }
        try parser.finish()
    } catch {
        fuzzFailure("the written capture does not parse: \(error)")
    }
    if parser.recordsRead != kept.count {
        fuzzFailure("the written capture holds \(parser.recordsRead) records, \(kept.count) were kept")
    }
    for frame in kept where again.filter(frame) != frame {
        fuzzFailure("filtering a kept frame again changed or dropped it: \(frame)")
    }
    return 0
}
