/// The btsnoop datalinks griptrack reads and writes (the header's u32 at byte 12).
///
/// `BtsnoopParser` also reads datalink 1001 (HCI unencapsulated, the packet type taken from the record flags); it
/// reports such a file as `.hciUART` and keeps the exact number in `BtsnoopParser.datalinkCode`.
public enum BtsnoopDatalink: UInt32, Sendable {
    /// 1002, HCI UART (H4): each record starts with a one-byte packet type. Android's "Bluetooth HCI snoop log".
    case hciUART = 1002
    /// 2001, Linux monitor: the packet type and adapter index are in the record flags. What `btmon -w` writes.
    case linuxMonitor = 2001
}
