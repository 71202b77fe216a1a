import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Who is writing a recording, so that crash recovery closes only recordings whose writer is gone.
///
/// Several processes share one database (the daemon, `griptrack record --direct`, `replay --save`); opening the
/// store must not "recover" a recording that another live process is still writing. The token is
/// `boot=<boot id>;pid=<pid>;start=<process start time in clock ticks>`: a different boot, a missing process, a
/// zombie, or a reused pid (different start time) all mean the writer is gone.
struct ProcessOwner: Sendable, Equatable {
    /// The stored token.
    var token: String

    /// The current process.
    static let current = ProcessOwner(token: makeToken(pid: getpid()))

    /// Whether the process that wrote `token` may still be running (and so may still be appending).
    ///
    /// An unreadable token counts as gone: the alternative would leave a recording open forever.
    static func isAlive(_ token: String) -> Bool {
        var fields: [String: String] = [:]
        for part in token.split(separator: ";") {
            let pair = part.split(separator: "=", maxSplits: 1)
            if pair.count == 2 { fields[String(pair[0])] = String(pair[1]) }
        }
        guard let pidText = fields["pid"], let pid = Int32(pidText), pid > 0 else { return false }
        if let boot = fields["boot"], let currentBoot = bootID(), boot != currentBoot { return false }
        if let stat = processStat(pid: pid) {
            if stat.state == "Z" || stat.state == "X" { return false }
            if let start = fields["start"], start != stat.startTime { return false }
            return true
        }
        // No /proc/<pid>/stat: either the process is gone, or there is no procfs (macOS); ask the kernel.
        if FileManager.default.fileExists(atPath: "/proc/self/stat") { return false }
        return kill(pid, 0) == 0 || errno == EPERM
    }

    private static func makeToken(pid: Int32) -> String {
        var token = "pid=\(pid)"
        if let boot = bootID() { token = "boot=\(boot);" + token }
        if let start = processStat(pid: pid)?.startTime { token += ";start=\(start)" }
        return token
    }

    private static func bootID() -> String? {
        guard let text = try? String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8) else {
            return nil
        }
        let id = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return id.isEmpty ? nil : id
    }

    /// Fields 3 (state) and 22 (start time) of `/proc/<pid>/stat` (proc(5)); the name in field 2 may hold spaces
    /// and parentheses, so fields are counted after its last `)`.
    private static func processStat(pid: Int32) -> (state: String, startTime: String)? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = text.lastIndex(of: ")")
        else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 19 else { return nil }
        return (String(fields[0]), String(fields[19]))
    }
}
