import GripWire

/// ATT PDUs the simulated host and device exchange (Core Spec Vol 3 Part F §3.4). Only what a Progressor session
/// needs; layouts are in `reference/btsnoop.md` §3–4.
enum ATT {
    static let writeResponse: UInt8 = 0x13

    static func exchangeMTURequest(_ mtu: UInt16) -> [UInt8] { [0x02] + littleEndianBytes(mtu) }
    static func exchangeMTUResponse(_ mtu: UInt16) -> [UInt8] { [0x03] + littleEndianBytes(mtu) }

    static func readByGroupTypeRequest(from start: UInt16) -> [UInt8] {
        [0x10] + littleEndianBytes(start) + littleEndianBytes(UInt16(0xFFFF)) + littleEndianBytes(UInt16(0x2800))
    }

    static func readByGroupTypeResponse16(_ services: [(UInt16, UInt16, UInt16)]) -> [UInt8] {
        [0x11, 6] + services.flatMap { littleEndianBytes($0.0) + littleEndianBytes($0.1) + littleEndianBytes($0.2) }
    }

    static func readByGroupTypeResponse128(_ range: ClosedRange<UInt16>, uuid: String) -> [UInt8] {
        [0x11, 20] + littleEndianBytes(range.lowerBound) + littleEndianBytes(range.upperBound) + wire(uuid)
    }

    static func attributeNotFound(request: UInt8, handle: UInt16) -> [UInt8] {
        [0x01, request] + littleEndianBytes(handle) + [0x0A]
    }

    static func readByTypeRequest(_ range: ClosedRange<UInt16>) -> [UInt8] {
        [0x08] + littleEndianBytes(range.lowerBound) + littleEndianBytes(range.upperBound)
            + littleEndianBytes(UInt16(0x2803))
    }

    static func readByTypeResponse128(_ characteristics: [(UInt16, UInt8, UInt16, String)]) -> [UInt8] {
        [0x09, 21] + characteristics.flatMap {
            littleEndianBytes($0.0) + [$0.1] + littleEndianBytes($0.2) + wire($0.3)
        }
    }

    static func readByTypeResponse16(_ characteristics: [(UInt16, UInt8, UInt16, UInt16)]) -> [UInt8] {
        [0x09, 7] + characteristics.flatMap {
            littleEndianBytes($0.0) + [$0.1] + littleEndianBytes($0.2) + littleEndianBytes($0.3)
        }
    }

    static func findInformationRequest(_ range: ClosedRange<UInt16>) -> [UInt8] {
        [0x04] + littleEndianBytes(range.lowerBound) + littleEndianBytes(range.upperBound)
    }

    static func findInformationResponse16(_ descriptors: [(UInt16, UInt16)]) -> [UInt8] {
        [0x05, 0x01] + descriptors.flatMap { littleEndianBytes($0.0) + littleEndianBytes($0.1) }
    }

    static func writeRequest(handle: UInt16, value: [UInt8]) -> [UInt8] { [0x12] + littleEndianBytes(handle) + value }

    static func notification(handle: UInt16, value: [UInt8]) -> [UInt8] { [0x1B] + littleEndianBytes(handle) + value }

    /// A 128-bit UUID string as its 16 little-endian wire bytes.
    static func wire(_ uuid: String) -> [UInt8] {
        let hex = uuid.filter { $0 != "-" }.map { $0.hexDigitValue ?? 0 }
        let bigEndian = stride(from: 0, to: 32, by: 2).map { UInt8(hex[$0] << 4 | hex[$0 + 1]) }
        return bigEndian.reversed()
    }
}
