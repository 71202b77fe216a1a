/// The pure core of `griptrack capture`: raw reads of the HCI monitor channel in, btsnoop bytes out.
///
/// Each read is parsed as one ``MonitorFrame``, passed through the ``CaptureFilter``, and a kept frame becomes one
/// datalink 2001 record (flags `index << 16 | opcode`, the payload unchanged unless the filter left other devices
/// out of it). The caller writes ``fileHeader`` once, then each returned record in one write, so the file on disk
/// is a complete capture after every record.
///
/// Pure: no I/O, no clock; the host time of each read is an argument.
public struct MonitorCapture: Sendable {
    /// What the capture has done so far (the progress line and the summary).
    public struct Counts: Sendable, Equatable {
        /// Reads handed to ``take(_:hostMicros:)``, malformed ones included.
        public var framesSeen = 0
        /// Frames written as records.
        public var framesKept = 0
        /// Reads that were not one monitor frame (skipped).
        public var malformedFrames = 0
        /// Bytes of the file: the header and every record returned so far.
        public var fileBytes: Int64 = 0

        /// All zero.
        public init() {}
    }

    /// The 16-byte btsnoop header of the file (datalink 2001, Linux monitor, as `btmon -w` writes).
    public static let fileHeader = BtsnoopWriter.fileHeader(datalink: .linuxMonitor)

    /// The frame filter (its counters and remembered connections).
    public private(set) var filter: CaptureFilter
    /// Counts so far; `fileBytes` starts at the header's 16 bytes.
    public private(set) var counts = Counts()
    /// The most recent malformed read's error, for the summary.
    public private(set) var lastMalformed: MonitorFrameError?

    /// A capture that keeps what `filter` keeps.
    /// - Parameter filter: the device and adapter filter (``CaptureFilter/init(device:adapter:)``).
    public init(filter: CaptureFilter) {
        self.filter = filter
        counts.fileBytes = Int64(Self.fileHeader.count)
    }

    /// Handles one read of the monitor socket.
    /// - Parameters:
    ///   - read: the bytes one `read` returned (one frame).
    ///   - hostMicros: when it was read, Unix µs (written as btsnoop's µs since 0000-01-01).
    /// - Returns: the record to append to the file, or nil when the frame is dropped or malformed.
    public mutating func take(_ read: UnsafeRawBufferPointer, hostMicros: Int64) -> [UInt8]? {
        counts.framesSeen += 1
        let frame: MonitorFrame
        do {
            frame = try MonitorFrame(parsing: read)
        } catch {
            counts.malformedFrames += 1
            lastMalformed = error
            return nil
        }
        guard let kept = filter.filter(frame) else { return nil }
        let record = BtsnoopWriter.record(flags: kept.btsnoopFlags, payload: kept.payload, hostMicros: hostMicros)
        counts.framesKept += 1
        counts.fileBytes += Int64(record.count)
        return record
    }

    /// Handles one read given as an array; see ``take(_:hostMicros:)-(UnsafeRawBufferPointer,_)``.
    /// - Parameters:
    ///   - read: one frame's bytes.
    ///   - hostMicros: when it was read, Unix µs.
    /// - Returns: the record to append, or nil.
    public mutating func take(_ read: [UInt8], hostMicros: Int64) -> [UInt8]? {
        read.withUnsafeBytes { take($0, hostMicros: hostMicros) }
    }
}
