import Foundation

/// What can go wrong talking to griptrackd. The text says what happened and what to do.
enum DaemonClientError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No socket file at the path.
    case notRunning(path: String)
    /// A socket file, but nobody accepts on it (a daemon that crashed).
    case notListening(path: String)
    /// connect(2) failed otherwise (permissions, path too long).
    case connectFailed(path: String, reason: String)
    /// The daemon refused this peer (`not authorized: …`).
    case notAuthorized(message: String)
    /// The daemon closed the connection.
    case closed
    /// A read or write failed (the connection dropped).
    case connectionLost(reason: String)
    /// A line that is not a protocol message.
    case malformed(line: String)
    /// The daemon answered `ERROR`.
    case daemon(message: String)
    /// The daemon's protocol is older than this command needs.
    case protocolTooOld(release: String, major: Int, minor: Int, needed: String)

    static let startHint = "start it with `sudo systemctl start griptrack`, or use `griptrack record --direct` / `--replay FILE`"

    var description: String {
        switch self {
        case .notRunning(let path):
            "griptrackd is not running (no socket at \(path)): \(Self.startHint)"
        case .notListening(let path):
            "griptrackd is not running (nobody is listening on \(path)): \(Self.startHint)"
        case .connectFailed(let path, let reason):
            "cannot connect to griptrackd at \(path): \(reason). Check the path (--socket) and its permissions."
        case .notAuthorized(let message):
            "griptrackd refused the connection: \(message). Join group griptrack (`sudo usermod -aG griptrack "
                + "\(currentUser)`, then log in again), or use `griptrack record --direct` / `--replay FILE`."
        case .closed:
            "griptrackd closed the connection"
        case .connectionLost(let reason):
            "the connection to griptrackd dropped (\(reason))"
        case .malformed(let line):
            "griptrackd sent a line this client cannot read: \(line)"
        case .daemon(let message):
            message
        case .protocolTooOld(let release, let major, let minor, let needed):
            "griptrackd \(release) speaks protocol \(major).\(minor); this command needs \(needed). "
                + "Update griptrackd to the same release as griptrack."
        }
    }

    /// The exit code (docs/design.md, "Interfaces"): daemon unavailable 4, everything else 1.
    var exit: CLIExit {
        switch self {
        case .notRunning, .notListening, .connectFailed, .notAuthorized, .closed, .protocolTooOld: .unavailable
        case .connectionLost, .malformed, .daemon: .error
        }
    }
}
