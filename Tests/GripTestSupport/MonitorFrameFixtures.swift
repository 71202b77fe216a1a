// Monitor-channel input for `griptrack capture`'s tests: no machine here has a Bluetooth controller, so the frames
// the kernel would send are rebuilt from btsnoop captures (a datalink 2001 record is a monitor frame with its
// header moved into the flags), and a second device's traffic is made up and interleaved.

import GripWire

/// One read of the monitor socket, with the host time the capture stamps it with.
public struct TimedFrame: Sendable {
    /// Header and payload, as `read` returns them.
    public var bytes: [UInt8]
    /// Unix µs.
    public var hostMicros: Int64

    /// A read and its time.
    public init(bytes: [UInt8], hostMicros: Int64) {
        self.bytes = bytes
        self.hostMicros = hostMicros
    }
}

/// Monitor frames from the simulator's captures, and a second device's traffic to weave among them.
public enum MonitorFrameFixtures {
    /// The simulated Progressor, as printed (the simulator's peer).
    public static let progressor: [UInt8] = [0xF4, 0xD3, 0x6B, 0x4A, 0x17, 0x19]
    /// A second device near the Pi (a heart-rate strap, say), as printed.
    public static let stranger: [UInt8] = [0xC0, 0xFF, 0xEE, 0x12, 0x34, 0x56]
    /// The stranger's connection handle (the simulator's are 0x0040 and up).
    public static let strangerHandle: UInt16 = 0x0077

    /// The records of a datalink 2001 btsnoop capture as monitor frames, in file order.
    /// - Parameter btsnoop: a well-formed capture (this is a fixture reader: it stops at the first broken record).
    /// - Returns: one frame per record, stamped with the record's host time.
    public static func frames(fromBtsnoop btsnoop: [UInt8]) -> [TimedFrame] {
        var frames: [TimedFrame] = []
        var offset = 16
        while offset + 24 <= btsnoop.count {
            let included = Int(bigEndian(btsnoop, at: offset + 4, width: 4))
            let flags = UInt32(bigEndian(btsnoop, at: offset + 8, width: 4))
            let timestamp = bigEndian(btsnoop, at: offset + 16, width: 8)
            guard offset + 24 + included <= btsnoop.count else { break }
            let payload = Array(btsnoop[(offset + 24)..<(offset + 24 + included)])
            let micros = Int64(bitPattern: timestamp) &- 0x00DC_DDB3_0F2F_8000
            frames.append(TimedFrame(
                bytes: MonitorFrame(btsnoopFlags: flags, payload: payload).bytes, hostMicros: micros))
            offset += 24 + included
        }
        return frames
    }

    /// The stranger's traffic on adapter 0, starting at `startMicros`: adverts, LE Create Connection with its
    /// Command Status, the connection, notifications and a write on its handle, Number Of Completed Packets, an
    /// encryption change, Disconnect and Disconnection Complete.
    /// - Parameter startMicros: host time of the first frame; frames are 1 ms apart.
    /// - Returns: the frames in order.
    public static func strangerTraffic(startMicros: Int64) -> [TimedFrame] {
        let wire = Array(stranger.reversed())
        let handle = le(strangerHandle)
        var packets: [(MonitorOpcode, [UInt8])] = []
        // Legacy advertising report: one report, ADV_IND, public address, 3 bytes of data, RSSI -60.
        packets.append((.event, event(0x3E, [0x02, 0x01, 0x00, 0x00] + wire + [0x03, 0x02, 0x01, 0x06, 0xC4])))
        // Extended advertising report: one report (24 fixed bytes, then 2 bytes of data).
        let extended: [UInt8] = [0x13, 0x00, 0x00] + wire + [0x01, 0x00, 0xFF, 0x7F, 0xC0, 0x00, 0x00, 0x00]
            + [UInt8](repeating: 0, count: 6) + [0x02, 0x01, 0x06]
        packets.append((.event, event(0x3E, [0x0D, 0x01] + extended)))
        // LE Create Connection to the stranger, and its Command Status.
        packets.append((.command, command(0x200D, [0x60, 0x00, 0x60, 0x00, 0x00, 0x00] + wire
            + [0x00, 0x18, 0x00, 0x28, 0x00, 0x00, 0x00, 0xF4, 0x01, 0x00, 0x00, 0x00, 0x00])))
        packets.append((.event, event(0x0F, [0x00, 0x01, 0x0D, 0x20])))
        packets.append((.event, event(0x3E, [0x01, 0x00] + handle + [0x00, 0x00] + wire
            + [0x18, 0x00, 0x00, 0x00, 0xF4, 0x01, 0x00])))
        packets.append((.event, event(0x08, [0x00] + handle + [0x01])))
        // Heart-rate notifications on handle 0x0025, and a CCCD write on 0x0026.
        for beat in 0..<5 {
            packets.append((.aclReceived, acl(handle: strangerHandle, boundary: 0b10,
                                               att: [0x1B, 0x25, 0x00, 0x00, UInt8(60 + beat)])))
        }
        packets.append((.aclSent, acl(handle: strangerHandle, boundary: 0b00, att: [0x12, 0x26, 0x00, 0x01, 0x00])))
        packets.append((.event, event(0x13, [0x01] + handle + [0x01, 0x00])))
        packets.append((.command, command(0x0406, handle + [0x13])))
        packets.append((.event, event(0x0F, [0x00, 0x01, 0x06, 0x04])))
        packets.append((.event, event(0x05, [0x00] + handle + [0x16])))
        // Someone else's bluetoothd log line and a system note: never kept with --device.
        packets.append((.userLogging, [0x06, 0x0B] + Array("bluetoothd\0".utf8) + Array("C0:FF:EE:12:34:56\0".utf8)))
        return packets.enumerated().map { position, packet in
            TimedFrame(
                bytes: MonitorFrame(opcode: packet.0, index: 0, payload: packet.1).bytes,
                hostMicros: startMicros + Int64(position) * 1_000)
        }
    }

    /// `other`'s frames spread evenly through `base`'s (each keeps its own host time).
    /// - Returns: `base` with one of `other` after every `base.count / (other.count + 1)` frames.
    public static func interleave(_ base: [TimedFrame], with other: [TimedFrame]) -> [TimedFrame] {
        let step = max(1, base.count / (other.count + 1))
        var result: [TimedFrame] = []
        var pending = other[...]
        for (position, frame) in base.enumerated() {
            result.append(frame)
            if (position + 1) % step == 0, let next = pending.popFirst() { result.append(next) }
        }
        return result + pending
    }

    /// An HCI event packet: code, length, parameters.
    public static func event(_ code: UInt8, _ parameters: [UInt8]) -> [UInt8] {
        [code, UInt8(parameters.count)] + parameters
    }

    /// An HCI command packet: opcode (little-endian), length, parameters.
    public static func command(_ opcode: UInt16, _ parameters: [UInt8]) -> [UInt8] {
        le(opcode) + [UInt8(parameters.count)] + parameters
    }

    /// One unfragmented ACL packet carrying an ATT PDU on L2CAP channel 4.
    public static func acl(handle: UInt16, boundary: UInt16, att: [UInt8]) -> [UInt8] {
        let l2cap = le(UInt16(att.count)) + le(0x0004) + att
        return le(handle | boundary << 12) + le(UInt16(l2cap.count)) + l2cap
    }

    /// A u16, little-endian, as HCI carries it.
    public static func le(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }

    /// Whether `needle` occurs anywhere in `haystack`.
    public static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, haystack.count >= needle.count else { return false }
        return (0...(haystack.count - needle.count)).contains { haystack[$0..<($0 + needle.count)].elementsEqual(needle) }
    }

    private static func bigEndian(_ bytes: [UInt8], at offset: Int, width: Int) -> UInt64 {
        bytes[offset..<(offset + width)].reduce(0) { $0 << 8 | UInt64($1) }
    }
}
