import GripStream
import GripWire

/// Turns a capture under `captures/` into what the fake BlueZ streams after a START write: the force
/// characteristic's notifications with their recorded spacing.
public enum CaptureNotifications {
    /// What a capture yields for the fake.
    public struct Stream: Sendable {
        /// `(delay since the previous entry or the START write, µs; value)`, ready for `FakeBlueZ(notifications:)`.
        public var notifications: [(delayMicros: Int, bytes: [UInt8])]
        /// The capture's force handle and how it was chosen (for messages).
        public var forceHandle: UInt16
    }

    /// Reads `captures/<name>` and keeps the force-handle notifications (data frames and command responses alike)
    /// from the first START write on the control point up to the next STOP write or disconnect, whichever comes
    /// first; notifications before START are left out because the fake only streams after START. A device that takes
    /// no START (it streams once subscribed) is read from its first notification.
    ///
    /// - Parameters:
    ///   - name: a file under `captures/`, e.g. `progressor-repeaters.btsnoop`.
    ///   - speed: recorded gaps are divided by this (10 = ten times faster); each delay is rounded to whole µs.
    /// - Returns: the notifications and the force handle.
    /// - Throws: `FakeError` when the capture has no force handle or no START write; the capture reader's errors.
    public static func load(_ name: String, speed: Double = 1) throws -> Stream {
        precondition(speed > 0, "speed must be positive")
        let path = CaptureFixtures.url(name).path
        let choice: ForceHandleChoice
        do {
            choice = try ForceHandleChooser.scan(path: path, option: nil)
        } catch {
            throw FakeError(message: "\(name): \(error)")
        }
        let profile = choice.profile
        let needsStart = profile.lifecycle.whenReady.contains(.startMeasurement)
        var started = !needsStart
        var finished = false
        var previousMicros: Int64?
        var notifications: [(delayMicros: Int, bytes: [UInt8])] = []
        _ = try CaptureFile.read(path: path) { event in
            guard !finished else { return }
            switch event {
            case .write(_, let handle, let value, let micros) where handle == choice.controlHandle:
                switch profile.command(fromControlWrite: value) {
                case .startMeasurement? where !started:
                    started = true
                    previousMicros = micros
                case .stopMeasurement? where started:
                    finished = true
                default:
                    break
                }
            case .notification(_, let handle, let value, let micros) where started && handle == choice.handle:
                let delay = Double(max(0, micros - (previousMicros ?? micros))) / speed
                notifications.append((Int(delay.rounded()), value))
                previousMicros = micros
            case .disconnected where started && (needsStart || previousMicros != nil):
                finished = true
            default:
                break
            }
        }
        guard started else { throw FakeError(message: "\(name): no START write on the control point") }
        return Stream(notifications: notifications, forceHandle: choice.handle)
    }
}
