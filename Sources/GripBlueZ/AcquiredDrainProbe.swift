import Glibc

/// The paced AcquireNotify drain without a bus, for the benchmark "acquired socket → ring" (`Benchmarks/`,
/// docs/design.md, "The hot path") and its test: what one datagram costs from the kernel's queue to the handler.
///
/// It owns an `AF_UNIX` `SOCK_SEQPACKET` pair like the one BlueZ hands over for AcquireNotify: `send` plays
/// bluetoothd on one end, `drain` reads the other end with `SO_TIMESTAMPNS` on, through the same
/// `DatagramReceiver.drain` a paced drain calls (`NotificationPacing.drainIfDue`), so what is measured is the
/// product's code.
@_spi(Benchmarks)
public final class AcquiredDrainProbe {
    private var sender: Int32
    private let receiverFD: Int32
    private let receiver = DatagramReceiver(capacity: 517)
    private let sink: NotificationSink

    /// Delivers what `drain` reads to `handler`; nil when the socket pair or its arrival stamps are refused.
    public init?(handler: @escaping NotificationHandler) {
        var pair: [Int32] = [-1, -1]
        guard unsafe socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue), 0, &pair) == 0 else { return nil }
        sender = pair[0]
        receiverFD = pair[1]
        // SAFETY: NotificationSink only calls the handler with buffers valid for the call's duration.
        sink = unsafe NotificationSink(handler)
        Syscall.makeNonBlockingCloseOnExec(receiverFD)
        guard Syscall.enableReceiveTimestamps(receiverFD) else {
            close(sender)
            close(receiverFD)
            return nil
        }
    }

    deinit {
        if sender >= 0 { close(sender) }
        close(receiverFD)
    }

    /// Closes the sending end, as bluetoothd does when the link drops: the next drain reads what is queued, then
    /// finds the end of the stream.
    public func hangUp() {
        if sender >= 0 { close(sender) }
        sender = -1
    }

    /// Queues one notification, as bluetoothd writes it; false when the queue is full.
    @discardableResult
    public func send(_ bytes: [UInt8]) -> Bool {
        unsafe bytes.withUnsafeBytes { unsafe Glibc.send(sender, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) } == bytes.count
    }

    /// One paced drain: every queued datagram to the handler. Returns false when the socket turned out closed.
    @discardableResult
    public func drain() -> Bool {
        receiver.drain(receiverFD, stamped: true, hungUp: false, to: sink) != .closed
    }
}
