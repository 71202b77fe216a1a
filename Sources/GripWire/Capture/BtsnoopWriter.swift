/// Builds a btsnoop capture in memory: the file header, then one record per `append…` call.
///
/// Pure (no I/O, no clock): every record takes its host time as an argument. The simulator writes its fixtures with
/// it and tests build malformed files with `appendRecord`. All packets belong to adapter 0.
///
/// Layout per datalink:
/// - `.hciUART` (1002): data starts with the H4 type (`02` ACL, `04` event); flags bit 0 = received, bit 1 = event.
/// - `.linuxMonitor` (2001): no H4 byte; flags = `adapter << 16 | opcode` (0 NEW_INDEX, 3 EVENT, 4 ACL TX, 5 ACL RX).
public struct BtsnoopWriter: Sendable {
    /// The datalink written in the header.
    public let datalink: BtsnoopDatalink
    /// The capture so far: header and records, ready to be written to a `.btsnoop` file.
    public private(set) var bytes: [UInt8]
    /// Records appended so far.
    public private(set) var recordCount = 0

    /// Starts a capture: writes the 16-byte file header (`btsnoop\0`, version 1, the datalink).
    /// - Parameter datalink: the record layout to write.
    public init(datalink: BtsnoopDatalink) {
        self.datalink = datalink
        bytes = Self.fileHeader(datalink: datalink)
    }

    /// The 16-byte file header: `btsnoop\0`, version 1 and the datalink, all big-endian.
    ///
    /// A streaming writer (`griptrack capture`) writes this once, then each ``record(flags:payload:hostMicros:originalLength:)``
    /// as it comes; the file is a valid capture after every record.
    /// - Parameter datalink: the record layout the file will hold.
    /// - Returns: the header's bytes.
    public static func fileHeader(datalink: BtsnoopDatalink) -> [UInt8] {
        var header = Array("btsnoop".utf8) + [0]
        appendBigEndian(UInt32(1), to: &header)
        appendBigEndian(datalink.rawValue, to: &header)
        return header
    }

    /// One record's bytes: the 24-byte record header (original and included length, flags, no drops, timestamp),
    /// then `payload`. What ``appendRecord(flags:payload:hostMicros:originalLength:)`` appends.
    /// - Parameters:
    ///   - flags: the record flags (for datalink 2001, `adapter << 16 | opcode`).
    ///   - payload: the record data.
    ///   - hostMicros: host time, Unix µs; written as btsnoop's µs since 0000-01-01.
    ///   - originalLength: the original length field; defaults to `payload.count`.
    /// - Returns: the record, ready to be written in one `write`.
    public static func record(
        flags: UInt32, payload: [UInt8], hostMicros: Int64, originalLength: UInt32? = nil
    ) -> [UInt8] {
        var record: [UInt8] = []
        record.reserveCapacity(24 + payload.count)
        let included = UInt32(truncatingIfNeeded: payload.count)
        appendBigEndian(originalLength ?? included, to: &record)
        appendBigEndian(included, to: &record)
        appendBigEndian(flags, to: &record)
        appendBigEndian(UInt32(0), to: &record)  // cumulative drops
        appendBigEndian(BtsnoopTime.btsnoop(fromUnixMicros: hostMicros), to: &record)
        record += payload
        return record
    }

    /// Appends a NEW_INDEX record announcing adapter 0 (datalink 2001 only; does nothing for 1002).
    /// - Parameters:
    ///   - address: the adapter's address, most significant byte first (as printed, `AA:BB:…`); 6 bytes, padded or
    ///     cut otherwise.
    ///   - name: the adapter name, e.g. `hci0` (at most 8 UTF-8 bytes are kept).
    ///   - hostMicros: host time, Unix µs.
    public mutating func appendNewIndex(address: [UInt8], name: String, hostMicros: Int64) {
        guard datalink == .linuxMonitor else { return }
        // type 0 (primary controller), bus 1 (USB), bdaddr little-endian, name 8 bytes NUL-padded.
        let payload: [UInt8] = [0x00, 0x01] + Self.wireAddress(address) + Self.padded(Array(name.utf8), to: 8)
        appendRecord(flags: 0, payload: payload, hostMicros: hostMicros)
    }

    /// Appends an HCI LE Connection Complete event (LE Meta `3E`, subevent `01`, status success, central role).
    /// - Parameters:
    ///   - connection: the connection handle (12 bits are kept).
    ///   - peer: the peer address, most significant byte first, as `CaptureEvent.connected` reports it.
    ///   - hostMicros: host time, Unix µs.
    public mutating func appendLEConnectionComplete(connection: UInt16, peer: [UInt8], hostMicros: Int64) {
        var parameters: [UInt8] = [0x01, 0x00] + ATTPDU.le(connection & 0x0FFF) + [0x00, 0x00]
        parameters += Self.wireAddress(peer)
        parameters += ATTPDU.le(0x0018) + ATTPDU.le(0x0000) + ATTPDU.le(0x01F4) + [0x00]  // 30 ms, 0, 5 s, 500 ppm
        appendEvent(code: 0x3E, parameters: parameters, hostMicros: hostMicros)
    }

    /// Appends an LE Advertising Report (legacy, one report: non-connectable undirected, public address).
    /// - Parameters:
    ///   - address: the advertiser, as printed (most significant byte first).
    ///   - data: the advertising data: AD structures `length | type | value`, at most 31 bytes.
    ///   - rssi: signal strength in dBm.
    ///   - hostMicros: host time, Unix µs.
    public mutating func appendLEAdvertisingReport(address: [UInt8], data: [UInt8], rssi: Int8, hostMicros: Int64) {
        let parameters: [UInt8] = [0x02, 0x01, 0x03, 0x00] + Self.wireAddress(address) + [UInt8(data.count)] + data
            + [UInt8(bitPattern: rssi)]
        appendEvent(code: 0x3E, parameters: parameters, hostMicros: hostMicros)
    }

    /// Appends an HCI Disconnection Complete event (status success).
    /// - Parameters:
    ///   - connection: the connection handle.
    ///   - reason: the HCI reason, e.g. `0x13` remote user terminated, `0x08` supervision timeout.
    ///   - hostMicros: host time, Unix µs.
    public mutating func appendDisconnectionComplete(connection: UInt16, reason: UInt8, hostMicros: Int64) {
        appendEvent(code: 0x05, parameters: [0x00] + ATTPDU.le(connection & 0x0FFF) + [reason], hostMicros: hostMicros)
    }

    /// Appends an ATT PDU: L2CAP (CID 4) → HCI ACL fragments of at most `aclDataLength` bytes each, one record per
    /// fragment, all at the same host time.
    ///
    /// The first fragment has PB = `00` when sent and `10` when received; continuations PB = `01`.
    /// - Parameters:
    ///   - pdu: the ATT PDU (see `ATTPDU`).
    ///   - connection: the connection handle.
    ///   - direction: `.sent` (host → device) or `.received` (device → host).
    ///   - hostMicros: host time, Unix µs.
    ///   - aclDataLength: the largest ACL payload; 27 is the LE default without Data Length Extension, 251 with it.
    ///     Values below 1 count as 1.
    public mutating func appendATT(
        _ pdu: [UInt8], connection: UInt16, direction: LinkDirection, hostMicros: Int64, aclDataLength: Int = 27
    ) {
        let frame = ATTPDU.le(UInt16(truncatingIfNeeded: pdu.count)) + ATTPDU.le(0x0004) + pdu
        let step = min(max(aclDataLength, 1), Int(UInt16.max))
        var start = 0
        repeat {
            let end = min(start + step, frame.count)
            let boundary: UInt16 = start > 0 ? 0b01 : (direction == .sent ? 0b00 : 0b10)
            let header = ATTPDU.le(connection & 0x0FFF | boundary << 12) + ATTPDU.le(UInt16(end - start))
            appendPacket(
                h4Type: 0x02, packet: header + frame[start..<end], direction: direction, hostMicros: hostMicros)
            start = end
        } while start < frame.count
    }

    /// Appends one record with these flags and data, exactly (the escape hatch for malformed-file tests).
    /// - Parameters:
    ///   - flags: the record flags (see the type's documentation for their meaning per datalink).
    ///   - payload: the record data, including the H4 type byte for 1002.
    ///   - hostMicros: host time, Unix µs.
    ///   - originalLength: the original length field; defaults to `payload.count`.
    public mutating func appendRecord(
        flags: UInt32, payload: [UInt8], hostMicros: Int64, originalLength: UInt32? = nil
    ) {
        bytes += Self.record(flags: flags, payload: payload, hostMicros: hostMicros, originalLength: originalLength)
        recordCount += 1
    }

    /// Appends any HCI event (controller → host), e.g. an extended advertising report for a test.
    /// - Parameters:
    ///   - code: the event code (`0x3E` LE Meta, …).
    ///   - parameters: the event's parameters (for LE Meta, starting with the subevent code).
    ///   - hostMicros: host time, Unix µs.
    public mutating func appendEvent(code: UInt8, parameters: [UInt8], hostMicros: Int64) {
        let packet = [code, UInt8(truncatingIfNeeded: parameters.count)] + parameters
        appendPacket(h4Type: 0x04, packet: packet, direction: .received, hostMicros: hostMicros)
    }

    /// One HCI packet (ACL `02` or event `04`) as a record of this datalink.
    private mutating func appendPacket(h4Type: UInt8, packet: [UInt8], direction: LinkDirection, hostMicros: Int64) {
        switch datalink {
        case .hciUART:
            let commandOrEvent: UInt32 = h4Type == 0x04 ? 0b10 : 0
            let received: UInt32 = direction == .received ? 1 : 0
            appendRecord(flags: commandOrEvent | received, payload: [h4Type] + packet, hostMicros: hostMicros)
        case .linuxMonitor:
            let opcode: UInt32 = h4Type == 0x04 ? 3 : (direction == .sent ? 4 : 5)
            appendRecord(flags: opcode, payload: packet, hostMicros: hostMicros)
        }
    }

    /// A 6-byte address, most significant byte first in, little-endian out.
    private static func wireAddress(_ address: [UInt8]) -> [UInt8] {
        Array(padded(Array(address.suffix(6)), to: 6).reversed())
    }

    private static func padded(_ bytes: [UInt8], to count: Int) -> [UInt8] {
        Array(bytes.prefix(count)) + [UInt8](repeating: 0, count: max(0, count - bytes.count))
    }

    private static func appendBigEndian<Value: FixedWidthInteger>(_ value: Value, to bytes: inout [UInt8]) {
        for shift in stride(from: Value.bitWidth - 8, through: 0, by: -8) {
            bytes.append(UInt8(truncatingIfNeeded: value >> shift))
        }
    }
}
