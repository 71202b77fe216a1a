import Foundation
import Testing

/// A throwaway PostgreSQL 15 cluster for one test: `initdb` into a fresh directory under /tmp, `pg_ctl start`
/// listening only on a Unix socket in that directory (no TCP port, so parallel clusters cannot collide), trust
/// authentication, `fsync=off` (a test cluster need not survive a power cut). Stopped and removed on `deinit`.
///
/// PostgreSQL refuses to run as root, and CI runs as root: there every command runs as the `postgres` user
/// (`runuser -u postgres --`), which Debian's package creates, and the directory is handed to it.
final class PostgresCluster: Sendable {
    static let binaries = "/usr/lib/postgresql/15/bin"
    /// The server's superuser, and the user the tests log in as.
    static let user = "griptrack"
    static let port = 5432

    /// Whether Debian's `postgresql-15` is installed.
    static var installed: Bool { FileManager.default.isExecutableFile(atPath: binaries + "/pg_ctl") }
    /// Tests run when PostgreSQL is installed, and in CI always (where a missing server must fail, not skip).
    static var shouldRun: Bool { installed || ProcessInfo.processInfo.environment["CI"] != nil }

    let directory: String
    var dataDirectory: String { directory + "/data" }
    var logFile: String { directory + "/server.log" }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    init() throws {
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

    /// Starts the server and waits until it accepts connections.
    func start() throws {
        let options = "-c listen_addresses='' -c unix_socket_directories='\(directory)' -p \(Self.port) -c fsync=off"
        try Self.run(
            [Self.binaries + "/pg_ctl", "-D", dataDirectory, "-l", logFile, "-w", "-t", "60", "-o", options, "start"],
            asPostgres: true)
    }

    /// Stops the server (fast: open connections are cut, as a crash or restart would).
    func stop() throws {
        try Self.run([Self.binaries + "/pg_ctl", "-D", dataDirectory, "-m", "fast", "-w", "stop"], asPostgres: true)
    }

    /// Runs a command (as `postgres` when this process is root), failing with its output.
    private static func run(_ arguments: [String], asPostgres: Bool) throws {
        let process = Process()
        if asPostgres && getuid() == 0 {
            process.executableURL = URL(fileURLWithPath: "/usr/sbin/runuser")
            process.arguments = ["-u", "postgres", "--"] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: arguments[0])
            process.arguments = Array(arguments.dropFirst())
        }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let bytes = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failure(
                description: "\(arguments.joined(separator: " ")) exited \(process.terminationStatus): "
                    + String(decoding: bytes, as: UTF8.self))
        }
    }
}
