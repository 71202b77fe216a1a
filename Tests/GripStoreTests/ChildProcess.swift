import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A running `store-crash-child`, with every stdout line it printed and when (CLOCK_MONOTONIC µs).
///
/// The executable is built with the tests (GripStoreTests depends on the `store-crash-child` target) and lies next
/// to the test bundle in the build products directory (`.build/debug/store-crash-child`); the environment variable
/// `GRIPTRACK_STORE_CHILD` overrides the path.
final class ChildProcess: Sendable {
    struct Line: Sendable {
        var micros: Int64
        var text: String
    }

    let process: Process
    private let input: Pipe
    private let lines = Mutex<[Line]>([])
    private let finishedReading = Mutex(false)

    init(_ arguments: [String]) throws {
        process = Process()
        process.executableURL = try Self.executable()
        process.arguments = arguments
        input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        let handle = output.fileHandleForReading
        let thread = Thread { [self] in
            var pending = Data()
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                pending += chunk
                let now = Self.monotonicMicros()
                while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    let text = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                    pending = Data(pending[(newline + 1)...])
                    lines.withLock { $0.append(Line(micros: now, text: text)) }
                }
            }
            finishedReading.withLock { $0 = true }
        }
        thread.start()
    }

    /// Every line so far.
    var output: [Line] { lines.withLock { $0 } }

    var pid: Int32 { process.processIdentifier }

    /// Waits (polling, up to `seconds`) until `condition` holds for the lines printed so far.
    func wait(seconds: Double = 15, until condition: ([Line]) -> Bool) -> Bool {
        let deadline = Self.monotonicMicros() + Int64(seconds * 1_000_000)
        while Self.monotonicMicros() < deadline {
            if condition(output) { return true }
            usleep(10_000)
        }
        return condition(output)
    }

    func send(_ line: String) {
        input.fileHandleForWriting.write(Data((line + "\n").utf8))
    }

    /// Waits for the process to exit (reaping it) and for its output to be read.
    func waitForExit() -> Int32 {
        process.waitUntilExit()
        _ = wait(seconds: 5) { _ in finishedReading.withLock { $0 } }
        return process.terminationStatus
    }

    static func monotonicMicros() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Int64(time.tv_sec) * 1_000_000 + Int64(time.tv_nsec) / 1_000
    }

    static func executable() throws -> URL {
        if let path = ProcessInfo.processInfo.environment["GRIPTRACK_STORE_CHILD"] {
            return URL(fileURLWithPath: path)
        }
        var directories: [URL] = []
        let selfExe = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        directories.append(selfExe.deletingLastPathComponent())
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            directories.append(bundle.bundleURL.deletingLastPathComponent())
        }
        directories.append(URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent())
        for directory in directories {
            let candidate = directory.appendingPathComponent("store-crash-child")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        throw ChildNotFound(searched: directories.map(\.path))
    }

    struct ChildNotFound: Error, CustomStringConvertible {
        var searched: [String]
        var description: String {
            "store-crash-child not found in \(searched); build it (`swift build --build-tests`) or set GRIPTRACK_STORE_CHILD"
        }
    }
}
