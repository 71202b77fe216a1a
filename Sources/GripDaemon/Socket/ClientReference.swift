/// A client as the recorder knows it: enough to address a reply and to name the requester.
struct ClientReference: Sendable, Equatable {
    /// The socket thread's id for the connection (never reused while the daemon runs).
    var id: Int
    /// The peer's process and user (SO_PEERCRED).
    var pid: Int32
    var uid: UInt32
}
