import Foundation
import Testing

/// A throwaway PostgreSQL 15 cluster for one test: `initdb` into a fresh directory under /tmp, `pg_ctl start`
/// listening only on a Unix socket in that directory (no TCP port, so parallel clusters cannot collide), trust
/// authentication, `fsync=off` (a test cluster need not survive a power cut). Stopped and removed on `deinit`.
///
/// PostgreSQL refuses to run as root, and CI runs as root: there every command runs as the `postgres` user
/// (`runuser -u postgres --`), which Debian's package creates, and the directory is handed to it.
public final class PostgresCluster: Sendable {
    public static let binaries = "/usr/lib/postgresql/15/bin"
    /// The server's superuser, and the user the tests log in as.
    public static let user = "griptrack"
    public static let port = 5432

    /// Whether Debian's `postgresql-15` is installed.
    public static var installed: Bool { FileManager.default.isExecutableFile(atPath: binaries + "/pg_ctl") }
    /// Tests run when PostgreSQL is installed, and in CI always (where a missing server must fail, not skip).
    public static var shouldRun: Bool { installed || ProcessInfo.processInfo.environment["CI"] != nil }

    public let directory: String
    public var dataDirectory: String { directory + "/data" }
    public var logFile: String { directory + "/server.log" }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    public init() throws {
        guard Self.installed else {
            throw Failure(
                description: "PostgreSQL 15 is not installed (\(Self.binaries)/pg_ctl is missing); run scripts/setup")
        }
        directory = "/tmp/gt-pg-" + String(UUID().uuidString.prefix(8)).lowercased()
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        if getuid() == 0 { try Self.run(["/bin/chown", "postgres:postgres", directory], asPostgres: false) }
        try Self.run(
            [Self.binaries + "/initdb", "-D", dataDirectory, "-A", "trust", "-U", Self.user, "-E", "UTF8", "--no-sync"],
            asPostgres: true)
        try start()
    }

    deinit {
        try? stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// The server's settings: only a Unix socket in the cluster's directory, no fsync.
    private var options: String {
        "-c listen_addresses='' -c unix_socket_directories='\(directory)' -p \(Self.port) -c fsync=off"
    }

    /// Starts the server and waits until it accepts connections.
    public func start() throws {
        try Self.run(
            [Self.binaries + "/pg_ctl", "-D", dataDirectory, "-l", logFile, "-w", "-t", "60", "-o", options, "start"],
            asPostgres: true)
    }

    /// Stops the server (fast: open connections are cut, as a crash or restart would).
    public func stop() throws {
        try Self.run([Self.binaries + "/pg_ctl", "-D", dataDirectory, "-m", "fast", "-w", "stop"], asPostgres: true)
    }

    /// Restarts the server as `pg_ctl restart -m fast` does (open connections are cut) and waits until it
    /// accepts connections again.
    public func restart() throws {
        try Self.run(
            [Self.binaries + "/pg_ctl", "-D", dataDirectory, "-l", logFile, "-m", "fast", "-w", "-t", "60", "-o", options,
             "restart"],
            asPostgres: true)
    }

    /// Runs a command (as `postgres` when this process is root), failing with its output.
    ///
    /// posix_spawn and waitpid rather than Foundation's Process: `pg_ctl start` leaves the server running, and it
    /// must inherit no descriptor but its output file (Process's completion wait did not return while it ran).
    private static func run(_ arguments: [String], asPostgres: Bool) throws {
        // Nothing of this process but the output file may leak into the server that `pg_ctl start` leaves running:
        // other tests' pipes and sockets held open by it would never see their end of file (glibc's closefrom
        // action for posix_spawn is not visible to Swift, so bash closes every descriptor above 2 before exec).
        // GRIPTRACK_TEST_SERVER marks the server for scripts/test-watchdog, which stops any a test left running.
        let closeAndExec = "export GRIPTRACK_TEST_SERVER=postgres; "
            + "for fd in $(ls /proc/$$/fd); do [ \"$fd\" -gt 2 ] && eval \"exec $fd>&-\"; done; exec \"$@\""
        let command = ["/bin/bash", "-c", closeAndExec, "bash"]
            + (asPostgres && getuid() == 0 ? ["/usr/sbin/runuser", "-u", "postgres", "--"] + arguments : arguments)
        let outputPath = FileManager.default.temporaryDirectory.appendingPathComponent("gt-pg-out-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: outputPath) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let argv: [UnsafeMutablePointer<CChar>?] = command.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, command[0], &actions, nil, argv, environ)
        guard spawned == 0 else {
            throw Failure(description: "cannot start \(arguments[0]): \(String(cString: strerror(spawned)))")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        let exited = status & 0x7f == 0
        let code = (status >> 8) & 0xff
        guard exited && code == 0 else {
            let output = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
            throw Failure(
                description: "\(arguments.joined(separator: " ")) "
                    + (exited ? "exited \(code)" : "was killed by signal \(status & 0x7f)") + ": " + output)
        }
    }
}
