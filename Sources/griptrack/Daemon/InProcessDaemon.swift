import Foundation
import Glibc
import GripDaemon
import Logging

/// A `GripDaemon.Daemon` run inside the CLI, on a private socket in a fresh temporary directory, for
/// `griptrack record --replay FILE` and `--direct`: the command then attaches to it exactly as to griptrackd.
final class InProcessDaemon: Sendable {
    /// The private directory holding the socket.
    let directory: String
    /// The socket the CLI connects to.
    let socketPath: String
    private let daemon: Daemon
    private let task: Task<Void, any Error>

    /// Makes the directory, binds the socket and starts the daemon's services.
    /// - Parameter configure: fills in the source (replay or BlueZ) and the database; the socket path and signal
    ///   handling are set here. It is given the private directory, which is removed at ``stop()`` with whatever a
    ///   throwaway database left in it.
    /// - Throws: `DaemonError` (a bad capture, a socket failure) or a failure to make the directory.
    init(_ configure: (inout DaemonConfiguration, _ directory: String) -> Void) throws {
        var template = Array("/tmp/griptrack-record-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else {
            throw CLIExit.error.fail("cannot make a temporary directory in /tmp: \(String(cString: strerror(errno)))")
        }
        directory = String(cString: made)
        socketPath = directory + "/griptrack.sock"
        var configuration = DaemonConfiguration(socketPath: socketPath, handlesSignals: false)
        configure(&configuration, directory)
        // The CLI owns the terminal: the in-process daemon logs nothing.
        let logger = Logger(label: "griptrack.daemon", factory: { _ in SwiftLogNoOpLogHandler() })
        let daemon: Daemon
        do {
            daemon = try Daemon(configuration: configuration, environment: [:], logger: logger)
        } catch {
            Self.remove(directory)
            throw error
        }
        self.daemon = daemon
        task = Task { try await daemon.run() }
    }

    /// Returns once clients are greeted.
    func waitUntilServing() async { await daemon.waitUntilServing() }

    /// Shuts the daemon down (if it has not ended on its own) and removes the directory.
    func stop() async {
        await daemon.shutdown()
        _ = try? await task.value
        Self.remove(directory)
    }

    /// Removes the private directory and the files directly in it (the socket, a throwaway database and its WAL).
    private static func remove(_ directory: String) {
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] {
            _ = unlink(directory + "/" + name)
        }
        _ = rmdir(directory)
    }
}
