/// What a frame of the kernel's HCI monitor channel carries: the `opcode` of its header, and of a datalink 2001
/// btsnoop record's flags (`adapter << 16 | opcode`).
///
/// A struct, not an enum: a newer kernel may send opcodes griptrack does not know, and they must pass through a
/// capture unchanged (without `--device`) instead of being refused.
public struct MonitorOpcode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The 16-bit opcode as the kernel sends it.
    public var rawValue: UInt16

    /// Wraps a raw opcode (known or not).
    /// - Parameter rawValue: the header's opcode.
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// 0: an adapter appeared; payload type, bus, address (little-endian), name[8].
    public static let newIndex = MonitorOpcode(rawValue: 0)
    /// 1: an adapter went away; no payload.
    public static let deleteIndex = MonitorOpcode(rawValue: 1)
    /// 2: an HCI command, host → controller (opcode u16, length, parameters).
    public static let command = MonitorOpcode(rawValue: 2)
    /// 3: an HCI event, controller → host (code, length, parameters).
    public static let event = MonitorOpcode(rawValue: 3)
    /// 4: ACL data sent (handle and flags u16, length u16, data).
    public static let aclSent = MonitorOpcode(rawValue: 4)
    /// 5: ACL data received.
    public static let aclReceived = MonitorOpcode(rawValue: 5)
    /// 6: SCO data sent.
    public static let scoSent = MonitorOpcode(rawValue: 6)
    /// 7: SCO data received.
    public static let scoReceived = MonitorOpcode(rawValue: 7)
    /// 8: the adapter was opened (powered for use).
    public static let openIndex = MonitorOpcode(rawValue: 8)
    /// 9: the adapter was closed.
    public static let closeIndex = MonitorOpcode(rawValue: 9)
    /// 10: the adapter's address and manufacturer.
    public static let indexInfo = MonitorOpcode(rawValue: 10)
    /// 11: vendor diagnostics from the controller.
    public static let vendorDiagnostic = MonitorOpcode(rawValue: 11)
    /// 12: a note from the kernel (text).
    public static let systemNote = MonitorOpcode(rawValue: 12)
    /// 13: a log line from a user-space program (bluetoothd's own log, for instance).
    public static let userLogging = MonitorOpcode(rawValue: 13)
    /// 14: a management-socket client opened.
    public static let controlOpen = MonitorOpcode(rawValue: 14)
    /// 15: a management-socket client closed.
    public static let controlClose = MonitorOpcode(rawValue: 15)
    /// 16: a management command.
    public static let controlCommand = MonitorOpcode(rawValue: 16)
    /// 17: a management event.
    public static let controlEvent = MonitorOpcode(rawValue: 17)
    /// 18: ISO data sent.
    public static let isoSent = MonitorOpcode(rawValue: 18)
    /// 19: ISO data received.
    public static let isoReceived = MonitorOpcode(rawValue: 19)

    /// The opcode's name as in BlueZ's monitor (`NEW_INDEX`, `ACL_RX`…), or its number.
    public var description: String {
        let names = [
            "NEW_INDEX", "DEL_INDEX", "COMMAND", "EVENT", "ACL_TX", "ACL_RX", "SCO_TX", "SCO_RX", "OPEN_INDEX",
            "CLOSE_INDEX", "INDEX_INFO", "VENDOR_DIAG", "SYSTEM_NOTE", "USER_LOGGING", "CTRL_OPEN", "CTRL_CLOSE",
            "CTRL_COMMAND", "CTRL_EVENT", "ISO_TX", "ISO_RX",
        ]
        return Int(rawValue) < names.count ? names[Int(rawValue)] : "opcode \(rawValue)"
    }
}
