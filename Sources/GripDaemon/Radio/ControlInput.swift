import GripBlueZ
import GripProtocol
import GripWire
import Logging

/// What the control task reacts to, in arrival order.
enum ControlInput: Sendable {
    /// The supervisor is looking for bluetoothd, the adapter or the device; `problem` says why the last attempt
    /// failed (nil while simply searching).
    case searching(problem: String?)
    /// Discovery found the device.
    case found(address: String, name: String?)
    /// A connection to the device exists (writes go through it) / has ended.
    case attached(DeviceConnection)
    case detached
    /// A progress report of the connection.
    case link(DeviceConnection.Event)
    /// A request from the socket thread.
    case request(DeviceRequests.Request)
    /// A deadline of the streaming device came: a periodic query or the idle check.
    case tick
    /// Graceful shutdown.
    case shutdown
}
