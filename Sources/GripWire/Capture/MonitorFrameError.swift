/// Why bytes read from the HCI monitor channel are not one monitor frame, and where.
///
/// The capture skips such a frame and counts it; the kernel never sends one, so a count above zero means a
/// truncated read (a buffer too small) or a kernel griptrack does not understand.
public enum MonitorFrameError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Fewer than the 6 header bytes (`opcode u16, index u16, len u16`); the header starts at byte 0.
    case shortHeader(bytesPresent: Int)
    /// The header's `len` (at byte 4) declares more payload than the read returned.
    case payloadBeyondBuffer(declaredLength: Int, bytesPresent: Int)
    /// The read returned bytes after the declared payload, from `byteOffset` on: two frames, or a wrong `len`.
    case trailingBytes(byteOffset: Int, count: Int)

    /// Byte offset in the frame of the field that is wrong: 0 for the header, 4 for `len`, the first extra byte
    /// for trailing bytes.
    public var byteOffset: Int {
        switch self {
        case .shortHeader: 0
        case .payloadBeyondBuffer: 4
        case .trailingBytes(let offset, _): offset
        }
    }

    /// What is wrong, where, and that the frame was skipped.
    public var description: String {
        switch self {
        case .shortHeader(let present):
            "monitor frame too short: \(present) of the 6 header bytes at byte 0; skipped"
        case .payloadBeyondBuffer(let declared, let present):
            "monitor frame too short: len at byte 4 declares \(declared) payload bytes, only \(present) follow; "
                + "skipped"
        case .trailingBytes(let offset, let count):
            "monitor frame too long: \(count) bytes after the declared payload, from byte \(offset); skipped"
        }
    }
}
