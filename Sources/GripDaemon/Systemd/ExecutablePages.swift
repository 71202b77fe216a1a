import Glibc
import GripSystem

/// Gives back the pages of griptrackd's executable that starting and connecting touched and streaming does not.
///
/// griptrackd is one static executable (the Swift runtime and Foundation linked in). Start-up (configuration,
/// migrations, the Swift runtime's conformance scans) and connecting (D-Bus introspection, GATT discovery) run code
/// and read data across about 27 MiB of it that the live path never touches again; the kernel keeps those pages
/// mapped, and in the resident set, until memory runs short. `MADV_PAGEOUT` on the executable's read-only mappings
/// reclaims them at once; the pages the live path runs fault back in (about 6 MiB, the kernel mapping 64 KiB around
/// each fault). Streaming and recording at 80 Hz, VmRSS goes from 31 to 19 MiB (Benchmarks/README.md, "Memory").
///
/// Read-only mappings only: there `MADV_PAGEOUT` drops clean file pages, which read back the same, and never
/// discards anything (a relocated page of `r--p`, written once at load, would go to swap, and with none stays).
enum ExecutablePages {
    /// How long after the link comes up the pipeline gives back what connecting touched: the first recording has
    /// then opened and committed, so what faults back in is the steady live path.
    static let afterConnectingMicros: Int64 = 10_000_000

    /// Advises the kernel to reclaim the executable's read-only mappings.
    ///
    /// - Returns: the bytes advised, or nil if `/proc/self/maps` could not be read or the kernel refused (before
    ///   Linux 5.4 `MADV_PAGEOUT` does not exist; nothing changes then).
    @discardableResult
    static func release() -> Int? {
        guard let maps = readMaps(), let executable = executablePath() else { return nil }
        var advised = 0
        for line in maps.split(separator: "\n") {
            // "start-end perms offset dev inode   path"
            let fields = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
            guard fields.count == 6, fields[5].drop(while: { $0 == " " }) == executable,
                fields[1].utf8.dropFirst().first == UInt8(ascii: "-")  // not writable
            else { continue }
            let bounds = fields[0].split(separator: "-")
            guard bounds.count == 2, let start = UInt(bounds[0], radix: 16), let end = UInt(bounds[1], radix: 16),
                end > start, let address = UnsafeMutableRawPointer(bitPattern: start)
            else { continue }
            guard madvise(address, Int(end - start), MADV_PAGEOUT) == 0 else { return nil }
            advised += Int(end - start)
        }
        return advised
    }

    private static func executablePath() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { return nil }
        return String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// `/proc/self/maps` whole (its files report size 0, so read until end of file).
    private static func readMaps() -> String? {
        let descriptor = open("/proc/self/maps", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16384)
        while true {
            let count = chunk.withUnsafeMutableBytes { free in
                SystemCall.retryingOnInterrupt { read(descriptor, free.baseAddress, free.count) }
            }
            guard count >= 0 else { return nil }
            if count == 0 { break }
            bytes.append(contentsOf: chunk[..<count])
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
