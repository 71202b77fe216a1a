import Foundation

/// Runs the built `griptrack` binary and captures what a user would see: exit status, stdout, stderr.
///
/// The binary is found next to the running test bundle (SwiftPM builds it into the same products directory
/// because the test target depends on it), or at `$GRIPTRACK_BINARY`. Every run gets `TZ=UTC` and a private
/// `HOME`/`XDG_DATA_HOME`, so output is stable and no real user database is touched.
public struct CLIRunner: Sendable {
    /// One finished run.
    public struct Result: Sendable, CustomStringConvertible {
        public var status: Int32
        public var stdout: String
        public var stderr: String

        public var description: String { "exit \(status)\n--- stdout\n\(stdout)--- stderr\n\(stderr)" }
    }

    /// The `griptrack` executable.
    public let executable: URL
    /// A private directory for HOME and XDG_DATA_HOME.
    public let home: URL

    /// Finds the binary and makes a private home.
    /// - Throws: when the binary is not built.
    public init() throws {
        executable = try Self.findExecutable()
        home = FileManager.default.temporaryDirectory.appendingPathComponent("griptrack-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
    }

    /// Runs `griptrack arguments…`, feeding `stdin`.
    ///
    /// The wait for the process happens on a thread of its own (`offPool`): a test that waited on the
    /// cooperative pool would hold one of its threads (two on the CI machine) for the whole run, and an in-process
    /// daemon, web server or sync client in the same test run would stall behind it. At most a few run at once
    /// (`ProcessSlots`).
    /// - Parameters:
    ///   - arguments: The command line after `griptrack`.
    ///   - stdin: Text for standard input (empty by default).
    ///   - environment: Variables to set on top of the test's (e.g. `DBUS_SYSTEM_BUS_ADDRESS` for a fake bus).
    /// - Returns: Exit status and output.
    /// - Throws: when the process cannot start.
    @discardableResult
    public func run(
        _ arguments: [String], stdin: String = "", environment extra: [String: String] = [:]
    ) async throws -> Result {
        let runner = self
        return try await ProcessSlots.shared.withSlot {
            try await offPool { try runner.runBlocking(arguments, stdin: stdin, environment: extra) }
        }
    }

    private func runBlocking(_ arguments: [String], stdin: String, environment extra: [String: String]) throws -> Result {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["TZ"] = "UTC"
        environment["HOME"] = home.path
        environment["XDG_DATA_HOME"] = home.appendingPathComponent("data").path
        environment["COLUMNS"] = "80"
        environment["USER"] = "tester"
        environment.merge(extra) { _, new in new }
        process.environment = environment
        let input = Pipe()
        let output = Pipe()
        let error = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = error
        try process.run()
        input.fileHandleForWriting.write(Data(stdin.utf8))
        try? input.fileHandleForWriting.close()
        // Read both pipes to the end before waiting, so a large output cannot block the child.
        let errorData = Locked(Data())
        let errorHandle = error.fileHandleForReading
        let reader = Thread { errorData.set(errorHandle.readDataToEndOfFile()) }
        reader.start()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        while !errorData.isSet { usleep(1000) }
        return Result(
            status: process.terminationStatus, stdout: String(decoding: outputData, as: UTF8.self),
            stderr: String(decoding: errorData.get(), as: UTF8.self))
    }

    /// Removes the private home.
    public func cleanUp() {
        try? FileManager.default.removeItem(at: home)
    }

    static func findExecutable() throws -> URL {
        if let path = ProcessInfo.processInfo.environment["GRIPTRACK_BINARY"] { return URL(fileURLWithPath: path) }
        var directories: [URL] = []
        directories.append(URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent())
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            directories.append(bundle.bundleURL.deletingLastPathComponent())
        }
        directories.append(URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent())
        directories.append(CaptureFixtures.repositoryRoot.appendingPathComponent(".build/debug"))
        for directory in directories {
            let candidate = directory.appendingPathComponent("griptrack")
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isDirectory), !isDirectory.boolValue,
                FileManager.default.isExecutableFile(atPath: candidate.path)
            {
                return candidate
            }
        }
        throw NotBuilt(searched: directories.map(\.path))
    }

    struct NotBuilt: Error, CustomStringConvertible {
        var searched: [String]
        var description: String { "griptrack not found in \(searched); run `swift build` or set GRIPTRACK_BINARY" }
    }
}

/// A value handed from the stderr reader thread to the test thread.
private final class Locked<Value>: @unchecked Sendable {
    // SAFETY: `value` and `done` are only touched while holding `lock`.
    private let lock = NSLock()
    private var value: Value
    private var done = false

    init(_ value: Value) { self.value = value }

    func set(_ newValue: Value) {
        lock.withLock {
            value = newValue
            done = true
        }
    }

    var isSet: Bool { lock.withLock { done } }
    func get() -> Value { lock.withLock { value } }
}
