import Glibc
import GripStore
import GripStream
import GripSystem

/// Why the daemon could not start.
package enum DaemonError: Error, CustomStringConvertible, Sendable {
    /// A system call on the listening socket failed (what was attempted, errno text).
    case socket(String, errno: Int32)
    /// Another daemon already answers on the socket path.
    case alreadyRunning(path: String)
    /// The replay capture cannot be used.
    case replay(ReplayError)
    /// The recordings database cannot be opened (its description names the path).
    case store(GripStoreError)
    /// The device (a Frez Dyno) needs a calibration coefficient that the configuration does not give.
    case missingCalibration(device: String)

    package var description: String {
        switch self {
        case .socket(let what, let code):
            return "cannot \(what): \(String(cString: strerror(code))). Check that the directory exists and is writable "
                + "by the daemon's user (systemd creates /run/griptrack through RuntimeDirectory=)."
        case .alreadyRunning(let path):
            return "another griptrackd is already listening on \(path). Stop it first (`systemctl stop griptrack`) "
                + "or pass a different --socket."
        case .replay(let error):
            return "\(error). Check the file with `griptrack replay FILE`."
        case .store(let error):
            return "\(error)"
        case .missingCalibration(let device):
            return "the \(device) reports raw ADC counts that need its calibration coefficient: set calibration = "
                + "<kg per count> under [device] in the configuration (the Frez app shows it), then start again."
        }
    }
}

extension WakePipe {
    /// A wake pipe for one of the daemon's threads; failing to make one is a ``DaemonError/socket(_:errno:)``.
    init(daemonPurpose purpose: String) throws(DaemonError) {
        do {
            self = try WakePipe(purpose: purpose)
        } catch {
            throw .socket(error.action, errno: error.errno)
        }
    }
}
