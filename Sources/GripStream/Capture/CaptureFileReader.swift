// Reads a btsnoop capture from disk in fixed-size chunks and pushes them through `BtsnoopParser`.
//
// Invariants: one file descriptor per call, opened read-only with O_CLOEXEC and closed on every path; one buffer of
// `chunkSize` bytes, owned by this function and never escaping it; the parser sees exactly the bytes `read(2)`
// reported, in file order. Memory use is the buffer plus the parser's state, whatever the file size.

import Glibc
import GripWire
import GripSystem

/// What a complete capture held, returned by `CaptureFile.read`.
public struct CaptureSummary: Sendable, Equatable {
    /// The file's datalink (1001 files report `.hciUART`).
    public var datalink: BtsnoopDatalink
    /// Records read.
    public var records: Int
    /// Bytes read (the whole file).
    public var bytes: Int64
    /// The GATT layout learned from the captured discovery (empty when the capture has none).
    public var gatt: GATTDatabase
    /// Host time of the first record, Unix µs; nil for a capture without records.
    public var firstRecordMicros: Int64?
    /// Partial L2CAP frames that never completed.
    public var droppedPartialPDUs: Int

    /// Creates a summary.
    public init(
        datalink: BtsnoopDatalink, records: Int, bytes: Int64, gatt: GATTDatabase, firstRecordMicros: Int64?,
        droppedPartialPDUs: Int
    ) {
        self.datalink = datalink
        self.records = records
        self.bytes = bytes
        self.gatt = gatt
        self.firstRecordMicros = firstRecordMicros
        self.droppedPartialPDUs = droppedPartialPDUs
    }
}

/// How far reading a capture got: what was read, and the damage that stopped it, if any.
public struct CaptureReadOutcome: Sendable {
    /// Everything read before the end or the damage (datalink `.hciUART` when the header was unreadable).
    public var summary: CaptureSummary
    /// What stopped the read early; `nil` when the whole file was read.
    public var error: CaptureError?
}

/// Reading btsnoop capture files.
public enum CaptureFile {
    /// Streams a btsnoop file through `BtsnoopParser`, `chunkSize` bytes at a time (never the whole file at once).
    ///
    /// Uses `open(2)` and `read(2)` (retrying on `EINTR`).
    /// - Parameters:
    ///   - path: the capture's path.
    ///   - chunkSize: bytes per `read(2)`; values below 1 count as 1.
    ///   - emit: called with each event in file order, as soon as its record has been read.
    /// - Returns: the datalink, record and byte counts, and the GATT database.
    /// - Throws: `CaptureError`: `.io("cannot open PATH: REASON")`, `.io("cannot read PATH: REASON")`, or a format
    ///   error from the parser. Events before the failing record have been emitted.
    public static func read(
        path: String, chunkSize: Int = 65536, emit: (CaptureEvent) -> Void
    ) throws(CaptureError) -> CaptureSummary {
        let outcome = readToEnd(path: path, chunkSize: chunkSize, emit: emit)
        if let error = outcome.error { throw error }
        return outcome.summary
    }

    /// Streams a btsnoop file as ``read(path:chunkSize:emit:)`` does, but reports damage beside what was read
    /// instead of throwing, and tells `afterChunk` the GATT layout discovered so far after every chunk (so a
    /// reader can choose the force handle without a second pass).
    ///
    /// - Parameters:
    ///   - path: the capture's path.
    ///   - chunkSize: bytes per `read(2)`; values below 1 count as 1.
    ///   - afterChunk: called after the events of each chunk, with the GATT layout learned so far.
    ///   - emit: called with each event in file order, as soon as its record has been read.
    /// - Returns: the summary of what was read and, if the read stopped early, why.
    public static func readToEnd(
        path: String, chunkSize: Int = 65536, afterChunk: (GATTDatabase) -> Void = { _ in },
        emit: (CaptureEvent) -> Void
    ) -> CaptureReadOutcome {
        // SAFETY: each borrowed event is turned into an owned CaptureEvent (its value copied) inside the callback.
        unsafe readToEndBorrowing(path: path, chunkSize: chunkSize, afterChunk: afterChunk) { unsafe emit($0.event) }
    }

    /// Streams a btsnoop file as ``readToEnd(path:chunkSize:afterChunk:emit:)`` does, lending each event's value
    /// bytes instead of copying them into an array (`BtsnoopParser.feedBorrowing`): no allocation per notification.
    ///
    /// - Parameters:
    ///   - path: the capture's path.
    ///   - chunkSize: bytes per `read(2)`; values below 1 count as 1.
    ///   - afterChunk: called after the events of each chunk, with the GATT layout learned so far.
    ///   - emit: called with each event in file order; its value is valid only during the call.
    /// - Returns: the summary of what was read and, if the read stopped early, why.
    package static func readToEndBorrowing(
        path: String, chunkSize: Int = 65536, afterChunk: (GATTDatabase) -> Void = { _ in },
        emit: (BorrowedCaptureEvent) -> Void
    ) -> CaptureReadOutcome {
        var parser = BtsnoopParser()
        let error = unsafe feedFile(path: path, chunkSize: chunkSize, into: &parser, afterChunk: afterChunk, emit: emit)
        let summary = CaptureSummary(
            datalink: parser.datalink ?? .hciUART, records: parser.recordsRead, bytes: parser.bytesConsumed,
            gatt: parser.gatt, firstRecordMicros: parser.firstRecordMicros,
            droppedPartialPDUs: parser.droppedPartialPDUs)
        return CaptureReadOutcome(summary: summary, error: error)
    }

    /// The read loop: returns the error that stopped it, or `nil` at a clean end of file.
    private static func feedFile(
        path: String, chunkSize: Int, into parser: inout BtsnoopParser, afterChunk: (GATTDatabase) -> Void,
        emit: (BorrowedCaptureEvent) -> Void
    ) -> CaptureError? {
        // SAFETY: `path` is a Swift String bridged to a NUL-terminated C string for the duration of the call.
        let descriptor = unsafe open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            return CaptureError(.io("cannot open \(path): \(errorText(errno))"), byteOffset: 0)
        }
        defer { _ = close(descriptor) }

        var buffer = [UInt8](repeating: 0, count: max(1, chunkSize))
        var offset: Int64 = 0
        while true {
            // SAFETY: the closure only passes the buffer to read(2); the pointer does not escape it.
            let count = unsafe buffer.withUnsafeMutableBytes { raw in
                // SAFETY: `raw` is the array's own storage of `raw.count` bytes, valid for this closure; read(2)
                // writes at most `raw.count` bytes into it.
                SystemCall.retryingOnInterrupt { unsafe Glibc.read(descriptor, raw.baseAddress, raw.count) }
            }
            if count < 0 {
                return CaptureError(
                    .io("cannot read \(path): \(errorText(errno))"),
                    recordNumber: parser.recordsRead + 1, byteOffset: offset)
            }
            if count == 0 { break }
            offset += Int64(count)
            let chunk = buffer[0..<count]
            // SAFETY: the parser reads the `count` initialised bytes during `feedBorrowing` and keeps no pointer to
            // them (it copies what it must keep); the events lending them are only valid inside `emit`, whose
            // contract forbids keeping them. So no pointer outlives the closure.
            let result = unsafe chunk.withUnsafeBytes { bytes in
                Result { () throws(CaptureError) in try unsafe parser.feedBorrowing(bytes, emit: emit) }
            }
            if case .failure(let error) = result { return error }
            afterChunk(parser.gatt)
        }
        do {
            try parser.finish()
        } catch {
            return error
        }
        return nil
    }

    /// The C library's message for an errno value, e.g. "No such file or directory".
    private static func errorText(_ code: Int32) -> String {
        // SAFETY: strerror returns a pointer to a NUL-terminated static or thread-local string, copied at once.
        unsafe String(cString: strerror(code))
    }
}
