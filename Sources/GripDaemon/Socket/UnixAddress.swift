import Glibc

/// A `sockaddr_un` for a filesystem path, or an abstract name when the path starts with "@" (as $NOTIFY_SOCKET may).
struct UnixAddress {
    private var storage = sockaddr_un()
    private(set) var length: socklen_t = 0

    /// Nil when the path is empty or too long for `sun_path` (107 bytes plus NUL).
    init?(path: String) {
        var bytes = Array(path.utf8)
        guard !bytes.isEmpty, bytes.count < MemoryLayout.size(ofValue: storage.sun_path) else { return nil }
        let abstract = bytes[0] == UInt8(ascii: "@")
        if abstract { bytes[0] = 0 }
        storage.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &storage.sun_path) { raw in
            raw.copyBytes(from: bytes)
            if !abstract { raw[bytes.count] = 0 }
        }
        let pathOffset = MemoryLayout<sockaddr_un>.offset(of: \.sun_path) ?? 2
        length = socklen_t(pathOffset + bytes.count + (abstract ? 0 : 1))
    }

    /// Calls `body` with the address as a `sockaddr` pointer and its length.
    func withSockaddr<T>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> T) -> T {
        withUnsafePointer(to: storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, length) }
        }
    }
}
