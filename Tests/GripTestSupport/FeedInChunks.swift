// Feeding a capture to `BtsnoopParser` in different splits, in the spirit of swift-nio's
// ByteToMessageDecoderVerifier: a push parser must give the same events and the same error however its input is cut.

import GripSimulator
import GripWire

/// Everything a fresh parser produced for one input.
public struct FeedOutcome: Equatable, Sendable, CustomStringConvertible {
    /// Events in emission order.
    public var events: [CaptureEvent]
    /// The error `feed` or `finish` threw, if any (feeding stops at the first error).
    public var error: CaptureError?
    /// The parser's GATT database at the end.
    public var gatt: GATTDatabase
    /// Complete records processed.
    public var recordsRead: Int
    /// Bytes of complete header and records.
    public var bytesConsumed: Int64
    /// Partial L2CAP frames dropped.
    public var droppedPartialPDUs: Int
    /// Host time of the first record, Unix µs.
    public var firstRecordMicros: Int64?

    /// The notifications only, in order.
    public var notifications: [(handle: UInt16, value: [UInt8], hostMicros: Int64)] {
        events.compactMap {
            if case .notification(_, let handle, let value, let micros) = $0 { (handle, value, micros) } else { nil }
        }
    }

    public var description: String {
        "\(events.count) events, \(recordsRead) records, \(bytesConsumed) bytes, "
            + "\(droppedPartialPDUs) dropped partial PDUs, error: \(error.map(String.init(describing:)) ?? "none")"
    }
}

/// Feeds `bytes` to a fresh parser in chunks of the given sizes, then the rest in one chunk, then calls `finish`.
///
/// - Parameters:
///   - bytes: the capture.
///   - chunkSizes: sizes of the successive chunks; 0 feeds an empty chunk, negative counts as 0.
/// - Returns: what the parser produced; feeding stops at the first error.
public func feedInChunks(_ bytes: [UInt8], chunkSizes: some Sequence<Int>) -> FeedOutcome {
    var parser = BtsnoopParser()
    var events: [CaptureEvent] = []
    var error: CaptureError?
    var start = 0
    do throws(CaptureError) {
        for size in chunkSizes where start < bytes.count {
            let end = min(bytes.count, start + max(0, size))
            try parser.feed(Array(bytes[start..<end])) { events.append($0) }
            start = end
        }
        if start < bytes.count { try parser.feed(Array(bytes[start...])) { events.append($0) } }
        try parser.finish()
    } catch let caught {
        error = caught
    }
    return FeedOutcome(
        events: events, error: error, gatt: parser.gatt, recordsRead: parser.recordsRead,
        bytesConsumed: parser.bytesConsumed, droppedPartialPDUs: parser.droppedPartialPDUs,
        firstRecordMicros: parser.firstRecordMicros)
}

/// Feeds the whole capture in one call.
public func feedWhole(_ bytes: [UInt8]) -> FeedOutcome {
    feedInChunks(bytes, chunkSizes: [bytes.count])
}

/// Feeds the capture one byte per call.
public func feedByteByByte(_ bytes: [UInt8]) -> FeedOutcome {
    feedInChunks(bytes, chunkSizes: repeatElement(1, count: bytes.count))
}

/// Feeds the capture in pseudo-random chunk sizes (0 … `maximumChunk`), reproducible from `seed`.
public func feedInRandomChunks(_ bytes: [UInt8], seed: UInt64, maximumChunk: Int = 64) -> FeedOutcome {
    var generator = SplitMix64(seed: seed)
    var sizes: [Int] = []
    var total = 0
    while total < bytes.count {
        let size = Int(generator.next() % UInt64(max(1, maximumChunk) + 1))
        sizes.append(size)
        total += size
    }
    return feedInChunks(bytes, chunkSizes: sizes)
}

/// Compares feeding whole against byte by byte and against random chunkings (seeds `seeds`).
/// - Returns: one line per split whose outcome differs from feeding whole; empty when all agree.
public func chunkingDiscrepancies(_ bytes: [UInt8], seeds: some Sequence<UInt64> = 0..<8) -> [String] {
    let whole = feedWhole(bytes)
    var problems: [String] = []
    let byteByByte = feedByteByByte(bytes)
    if byteByByte != whole { problems.append("byte by byte: \(byteByByte) — whole: \(whole)") }
    for seed in seeds {
        let random = feedInRandomChunks(bytes, seed: seed)
        if random != whole { problems.append("random chunks, seed \(seed): \(random) — whole: \(whole)") }
    }
    return problems
}

/// Feeds the capture record by record (header, then each record exactly) and attributes each event to the 1-based
/// record whose bytes completed it, as Wireshark numbers frames.
/// - Parameter bytes: a well-formed capture (a malformed tail is fed as one last chunk).
/// - Returns: the events with their record numbers, and the error if any.
public func eventsByRecord(_ bytes: [UInt8]) -> (events: [(record: Int, event: CaptureEvent)], error: CaptureError?) {
    var parser = BtsnoopParser()
    var events: [(record: Int, event: CaptureEvent)] = []
    var start = 0
    var record = 0
    do throws(CaptureError) {
        var end = min(16, bytes.count)
        while start < bytes.count {
            let current = record
            try parser.feed(Array(bytes[start..<end])) { events.append((current, $0)) }
            start = end
            // Next record: 24-byte header + included length (big-endian u32 at offset 4).
            guard end + 24 <= bytes.count else {
                end = bytes.count
                continue
            }
            let included = bytes[(end + 4)..<(end + 8)].reduce(0) { $0 << 8 | Int($1) }
            end = min(bytes.count, end + 24 + included)
            record += 1
        }
        try parser.finish()
    } catch {
        return (events, error)
    }
    return (events, nil)
}
