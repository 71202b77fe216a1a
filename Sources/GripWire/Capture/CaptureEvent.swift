/// Where a capture record came from: one adapter's one connection, in one direction.
public struct LinkKey: Hashable, Sendable {
    /// Controller index (datalink 2001), 0 for 1001/1002 files.
    public var adapter: UInt16
    /// HCI connection handle (12 bits).
    public var connection: UInt16

    public init(adapter: UInt16, connection: UInt16) {
        self.adapter = adapter
        self.connection = connection
    }
}

/// Direction of a record relative to the host.
public enum LinkDirection: Sendable, Equatable {
    /// Host → controller: what the phone or Pi sent (writes, requests).
    case sent
    /// Controller → host: what the device sent (notifications, responses).
    case received
}

/// One meaningful thing a capture says, in file order. Produced by `BtsnoopParser`.
///
/// Times are host microseconds since the Unix epoch, taken from the btsnoop record header.
public enum CaptureEvent: Sendable, Equatable {
    /// An LE connection was established (HCI LE Connection Complete / Enhanced Connection Complete).
    case connected(link: LinkKey, peer: [UInt8]?, hostMicros: Int64)
    /// The connection ended (HCI Disconnection Complete).
    case disconnected(link: LinkKey, reason: UInt8, hostMicros: Int64)
    /// An ATT MTU exchange completed (the smaller of the two proposals).
    case mtuExchanged(link: LinkKey, mtu: UInt16, hostMicros: Int64)
    /// A Handle Value Notification (0x1B), Indication (0x1D) or one entry of a Multiple Handle Value
    /// Notification (0x23), received from the device.
    case notification(link: LinkKey, handle: UInt16, value: [UInt8], hostMicros: Int64)
    /// A Write Request (0x12) or Write Command (0x52) sent to the device.
    case write(link: LinkKey, handle: UInt16, value: [UInt8], hostMicros: Int64)
    /// Manufacturer-specific data (AD type 0xFF) in an LE advertising report (legacy or extended): the advertiser's
    /// address (as printed), the company id, and the data after it.
    case advertisement(adapter: UInt16, address: [UInt8], manufacturerID: UInt16, data: [UInt8], hostMicros: Int64)
}

/// A ``CaptureEvent`` whose value bytes are lent by the parser instead of copied into an array.
///
/// `BtsnoopParser.feedBorrowing(_:emit:)` hands these out, so a reader that copies a value elsewhere anyway (the
/// replay's ring slot) costs no allocation per notification; ``event`` is the owned equivalent.
///
/// - Important: `value` points into the bytes given to the parser (or into its reassembly buffer) and is valid
///   only inside the callback that received the event. Copy the bytes, or take ``event``, to keep them.
@unsafe
public enum BorrowedCaptureEvent {
    /// As ``CaptureEvent/connected(link:peer:hostMicros:)``.
    case connected(link: LinkKey, peer: [UInt8]?, hostMicros: Int64)
    /// As ``CaptureEvent/disconnected(link:reason:hostMicros:)``.
    case disconnected(link: LinkKey, reason: UInt8, hostMicros: Int64)
    /// As ``CaptureEvent/mtuExchanged(link:mtu:hostMicros:)``.
    case mtuExchanged(link: LinkKey, mtu: UInt16, hostMicros: Int64)
    /// As ``CaptureEvent/notification(link:handle:value:hostMicros:)``; `value` is valid only during the callback.
    case notification(link: LinkKey, handle: UInt16, value: UnsafeRawBufferPointer, hostMicros: Int64)
    /// As ``CaptureEvent/write(link:handle:value:hostMicros:)``; `value` is valid only during the callback.
    case write(link: LinkKey, handle: UInt16, value: UnsafeRawBufferPointer, hostMicros: Int64)
    /// As ``CaptureEvent/advertisement(adapter:address:manufacturerID:data:hostMicros:)``; `data` is valid only
    /// during the callback.
    case advertisement(
        adapter: UInt16, address: [UInt8], manufacturerID: UInt16, data: UnsafeRawBufferPointer, hostMicros: Int64)

    /// The same event with its value copied into an array (one allocation for a notification or write).
    public var event: CaptureEvent {
        switch self {
        case .connected(let link, let peer, let micros): .connected(link: link, peer: peer, hostMicros: micros)
        case .disconnected(let link, let reason, let micros):
            .disconnected(link: link, reason: reason, hostMicros: micros)
        case .mtuExchanged(let link, let mtu, let micros): .mtuExchanged(link: link, mtu: mtu, hostMicros: micros)
        case .notification(let link, let handle, let value, let micros):
            .notification(link: link, handle: handle, value: Array(value), hostMicros: micros)
        case .write(let link, let handle, let value, let micros):
            .write(link: link, handle: handle, value: Array(value), hostMicros: micros)
        case .advertisement(let adapter, let address, let company, let data, let micros):
            .advertisement(adapter: adapter, address: address, manufacturerID: company, data: Array(data), hostMicros: micros)
        }
    }
}
