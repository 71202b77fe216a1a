import GripTestSupport
import GripWire
import Testing

/// `MonitorFrame`: one read of the HCI monitor channel, parsed without ever trapping.
@Suite("HCI monitor frames")
struct MonitorFrameTests {
    @Test("a frame's header gives opcode, index and payload, and the bytes round-trip")
    func parsesHeaderAndPayload() throws {
        let bytes: [UInt8] = [0x05, 0x00, 0x01, 0x00, 0x03, 0x00, 0xAA, 0xBB, 0xCC]
        let frame = try MonitorFrame(parsing: bytes)
        #expect(frame == MonitorFrame(opcode: .aclReceived, index: 1, payload: [0xAA, 0xBB, 0xCC]))
        #expect(frame.bytes == bytes)
        #expect(frame.btsnoopFlags == 0x0001_0005)
        #expect(MonitorFrame(btsnoopFlags: 0x0001_0005, payload: [0xAA, 0xBB, 0xCC]) == frame)
    }

    @Test("an empty payload is a frame (DEL_INDEX)")
    func emptyPayload() throws {
        #expect(try MonitorFrame(parsing: [0x01, 0x00, 0x00, 0x00, 0x00, 0x00])
            == MonitorFrame(opcode: .deleteIndex, index: 0, payload: []))
    }

    @Test("fewer than 6 bytes is a short header at byte 0", arguments: 0..<6)
    func shortHeader(length: Int) {
        let bytes = Array([0x03, 0x00, 0x00, 0x00, 0x02, 0x00].prefix(length)).map { UInt8($0) }
        #expect(throws: MonitorFrameError.shortHeader(bytesPresent: length)) { try MonitorFrame(parsing: bytes) }
        #expect(MonitorFrameError.shortHeader(bytesPresent: length).byteOffset == 0)
    }

    @Test("a len beyond the buffer names byte 4 and both lengths")
    func lengthBeyondBuffer() {
        let bytes: [UInt8] = [0x03, 0x00, 0x00, 0x00, 0xFF, 0xFF, 0x0E, 0x04]
        let error = MonitorFrameError.payloadBeyondBuffer(declaredLength: 65535, bytesPresent: 2)
        #expect(throws: error) { try MonitorFrame(parsing: bytes) }
        #expect(error.byteOffset == 4)
        #expect(error.description
            == "monitor frame too short: len at byte 4 declares 65535 payload bytes, only 2 follow; skipped")
    }

    @Test("bytes after the declared payload are an oversized frame, named from their offset")
    func trailingBytes() {
        let bytes: [UInt8] = [0x03, 0x00, 0x00, 0x00, 0x01, 0x00, 0x0E, 0x04, 0x05]
        #expect(throws: MonitorFrameError.trailingBytes(byteOffset: 7, count: 2)) { try MonitorFrame(parsing: bytes) }
    }

    @Test("unknown opcodes pass through with their number")
    func unknownOpcode() throws {
        let frame = try MonitorFrame(parsing: [0x2A, 0x00, 0xFF, 0xFF, 0x00, 0x00])
        #expect(frame.opcode.rawValue == 42)
        #expect(frame.opcode.description == "opcode 42")
        #expect(MonitorOpcode.isoReceived.description == "ISO_RX")
    }
}
