import Glibc

/// A self-pipe that wakes the bridge thread's `poll(2)`: libmosquitto's thread (connected, a message sent, a
/// command received) and `MQTTBridge.stop()` write a byte. GripDaemon's `WakePipe` is the same idea, but GripMQTT
/// sits below GripDaemon and cannot import it.
struct BridgeWake: Sendable {
    let readDescriptor: Int32
    let writeDescriptor: Int32

    init?() {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return nil }
        for end in ends {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        readDescriptor = ends[0]
        writeDescriptor = ends[1]
    }

    /// Never blocks: a full pipe already holds a pending wake-up.
    func signal() {
        var byte: UInt8 = 1
        _ = write(writeDescriptor, &byte, 1)
    }

    func drain() {
        var buffer = [UInt8](repeating: 0, count: 64)
        while read(readDescriptor, &buffer, buffer.count) == buffer.count {}
    }

    func close() {
        _ = Glibc.close(readDescriptor)
        _ = Glibc.close(writeDescriptor)
    }
}
