import Synchronization

/// Lines for the socket thread that do not come from the pipeline: replies to requests answered asynchronously
/// (TARE) and DEVICE state reports.
///
/// Any thread posts; the socket thread takes everything when the fan-out wake pipe fires (posting signals that
/// pipe), so no extra descriptor or thread is needed. Clients are named by the socket thread's serial number, so
/// a reply for a client that has gone meanwhile is simply dropped.
final class SocketOutbox: Sendable {
    enum Item: Sendable, Equatable {
        /// One line for one client.
        case reply(client: Int, line: String)
        /// One line for every watcher.
        case broadcast(String)
    }

    private let items = Mutex<[Item]>([])
    private let wake: WakePipe

    init(wake: WakePipe) {
        self.wake = wake
    }

    /// Any thread: queues `item` and wakes the socket thread.
    func post(_ item: Item) {
        items.withLock { $0.append(item) }
        wake.signal()
    }

    /// Socket thread: everything posted so far, in order.
    func take() -> [Item] {
        items.withLock { items in
            defer { items.removeAll() }
            return items
        }
    }
}

/// What the socket thread may ask of the radio, answered by the control task.
final class DeviceRequests: Sendable {
    /// An input for the control task.
    enum Request: Sendable {
        /// Zero the device; `reply` is called once with nil (done) or the ERROR text.
        case tare(reply: @Sendable (String?) -> Void)
        /// A client started watching: if measuring stopped for idleness, start again.
        case resume
    }

    /// The reply text for TARE while no device is connected (PROTOCOL-1.1).
    static let noDeviceForTare = "no device connected: tare needs a connected device"

    let outbox: SocketOutbox
    private let send: @Sendable (Request) -> Void

    init(outbox: SocketOutbox, send: @escaping @Sendable (Request) -> Void) {
        self.outbox = outbox
        self.send = send
    }

    /// Socket thread: asks for a tare; the reply line reaches `client` through the outbox.
    func tare(forClient client: Int) {
        let outbox = outbox
        send(.tare { error in
            outbox.post(.reply(client: client, line: error.map(ProtocolMessage.error) ?? ProtocolMessage.tare()))
        })
    }

    /// Socket thread: a client enabled WATCH.
    func resume() {
        send(.resume)
    }
}
