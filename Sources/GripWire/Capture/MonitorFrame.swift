/// One frame of the kernel's HCI monitor channel (what `btmon` reads): a 6-byte little-endian header
/// `opcode u16, index u16, len u16`, then `len` bytes of payload.
///
/// The payload is exactly a datalink 2001 btsnoop record's data, and `opcode` and `index` are its flags
/// (`index << 16 | opcode`), so a frame becomes a record without any translation (``btsnoopFlags``).
public struct MonitorFrame: Equatable, Sendable {
    /// The header's length in bytes.
    public static let headerLength = 6

    /// What the payload is (command, event, ACL…).
    public var opcode: MonitorOpcode
    /// The adapter (controller index, `hci0` = 0); `0xFFFF` for frames about no adapter (system notes, logging).
    public var index: UInt16
    /// The payload: an HCI packet without the H4 type byte, or the index record for `NEW_INDEX` and the like.
    public var payload: [UInt8]

    /// A frame from its parts.
    /// - Parameters:
    ///   - opcode: the frame's opcode.
    ///   - index: the adapter index.
    ///   - payload: the payload (at most 65535 bytes are meaningful: `len` is a u16).
    public init(opcode: MonitorOpcode, index: UInt16, payload: [UInt8]) {
        self.opcode = opcode
        self.index = index
        self.payload = payload
    }

    /// Parses the bytes one read of the monitor socket returned.
    ///
    /// Never traps: every length is checked against the buffer first.
    /// - Parameter bytes: exactly one frame, header and payload.
    /// - Returns: the frame.
    /// - Throws: `MonitorFrameError` when the buffer is shorter than the header, shorter than the declared
    ///   payload, or longer than both.
    public init(parsing bytes: UnsafeRawBufferPointer) throws(MonitorFrameError) {
        guard let opcode = bytes.uint16LE(at: 0), let index = bytes.uint16LE(at: 2),
              let length = bytes.uint16LE(at: 4)
        else { throw .shortHeader(bytesPresent: bytes.count) }
        let present = bytes.count - Self.headerLength
        guard let payload = bytes.bytes(from: Self.headerLength, count: Int(length)) else {
            throw .payloadBeyondBuffer(declaredLength: Int(length), bytesPresent: present)
        }
        guard present == Int(length) else {
            throw .trailingBytes(byteOffset: Self.headerLength + Int(length), count: present - Int(length))
        }
        self.init(opcode: MonitorOpcode(rawValue: opcode), index: index, payload: Array(payload))
    }

    /// Parses one frame from an array; see ``init(parsing:)-(UnsafeRawBufferPointer)``.
    /// - Parameter bytes: exactly one frame.
    /// - Throws: `MonitorFrameError`, as the buffer variant.
    public init(parsing bytes: [UInt8]) throws(MonitorFrameError) {
        // Array.withUnsafeBytes rethrows untyped errors, so carry the typed error out in a Result.
        let result = bytes.withUnsafeBytes { buffer in
            Result { () throws(MonitorFrameError) in try MonitorFrame(parsing: buffer) }
        }
        self = try result.get()
    }

    /// The frame from a datalink 2001 btsnoop record: the opposite of ``btsnoopFlags``.
    /// - Parameters:
    ///   - btsnoopFlags: the record's flags, `index << 16 | opcode`.
    ///   - payload: the record's data.
    public init(btsnoopFlags: UInt32, payload: [UInt8]) {
        self.init(
            opcode: MonitorOpcode(rawValue: UInt16(truncatingIfNeeded: btsnoopFlags)),
            index: UInt16(truncatingIfNeeded: btsnoopFlags >> 16), payload: payload)
    }

    /// The flags of this frame's datalink 2001 btsnoop record: `index << 16 | opcode`.
    public var btsnoopFlags: UInt32 { UInt32(index) << 16 | UInt32(opcode.rawValue) }

    /// The frame as the kernel sends it: header, then payload (cut to 65535 bytes, the most `len` can say).
    public var bytes: [UInt8] {
        let body = payload.prefix(Int(UInt16.max))
        return ATTPDU.le(opcode.rawValue) + ATTPDU.le(index) + ATTPDU.le(UInt16(body.count)) + body
    }
}
