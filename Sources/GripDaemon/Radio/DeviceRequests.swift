import GripProtocol
import Synchronization

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

    let outbox: Mailbox<DaemonReply>
    private let send: @Sendable (Request) -> Void

    init(outbox: Mailbox<DaemonReply>, send: @escaping @Sendable (Request) -> Void) {
        self.outbox = outbox
        self.send = send
    }

    /// Socket thread: asks for a tare; the reply line reaches `client` through the reply mailbox.
    func tare(forClient client: Int) {
        let outbox = outbox
        send(.tare { error in
            outbox.post(DaemonReply(target: .client(client), line: error.map { RequestProblem(message: $0).line } ?? ProtocolMessage.tare()))
        })
    }

    /// Socket thread: a client enabled WATCH.
    func resume() {
        send(.resume)
    }
}
