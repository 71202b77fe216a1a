import Glibc
import GripSystem

/// The btsnoop file `griptrack capture` writes: checked before the monitor socket opens, then written one record
/// per `write`, and flushed to disk (`fsync`) when it closes, so a capture cut short (power loss, kill -9) holds
/// every record written before.
final class CaptureWriter {
    let path: String
    private let descriptor: Int32
    /// Whether `open` created the file (a capture that cannot start removes it again).
    private let created: Bool
    private var closed = false

    /// Opens (or creates, mode 0644 less the umask) `path` for writing without truncating it yet, so a capture
    /// that cannot start leaves an existing file alone.
    /// - Throws: the errno text, for the caller's message.
    init(path: String) throws(CaptureWriterError) {
        self.path = path
        let existed = access(path, F_OK) == 0
        let descriptor = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw CaptureWriterError(path: path, errno: errno) }
        var status = stat()
        if fstat(descriptor, &status) == 0, status.st_mode & S_IFMT != S_IFREG {
            _ = Glibc.close(descriptor)
            throw CaptureWriterError(path: path, reason: "not a regular file")
        }
        self.descriptor = descriptor
        created = !existed
    }

    /// Empties the file and writes the btsnoop header.
    /// - Parameter header: the 16-byte file header.
    /// - Throws: `CaptureWriterError` when the file cannot be truncated or written.
    func start(header: [UInt8]) throws(CaptureWriterError) {
        guard ftruncate(descriptor, 0) == 0 else { throw CaptureWriterError(path: path, errno: errno) }
        try append(header)
    }

    /// Writes one record (or the header) in one `write`, continuing only if the kernel wrote part of it.
    /// - Throws: `CaptureWriterError` (disk full, I/O error).
    func append(_ bytes: [UInt8]) throws(CaptureWriterError) {
        var written = 0
        while written < bytes.count {
            let result = bytes.withUnsafeBytes { buffer in
                SystemCall.retryingOnInterrupt {
                    write(descriptor, buffer.baseAddress.map { $0 + written }, buffer.count - written)
                }
            }
            if result < 0 { throw CaptureWriterError(path: path, errno: errno) }
            written += result
        }
    }

    /// Flushes the file to disk and closes it.
    /// - Throws: `CaptureWriterError` when `fsync` or `close` report an error (the data may be incomplete).
    func close() throws(CaptureWriterError) {
        guard !closed else { return }
        closed = true
        let synced = fsync(descriptor) == 0 ? 0 : errno
        let closedWell = Glibc.close(descriptor) == 0 ? 0 : errno
        let failure = synced != 0 ? synced : closedWell
        if failure != 0 { throw CaptureWriterError(path: path, errno: failure) }
    }

    /// Gives the file to the user who ran `sudo griptrack capture`, so the report can be attached without root.
    func handOverToSudoUser(environment: [String: String]) {
        guard geteuid() == 0, let uid = environment["SUDO_UID"].flatMap(UInt32.init),
              let gid = environment["SUDO_GID"].flatMap(UInt32.init)
        else { return }
        _ = fchown(descriptor, uid, gid)
    }

    /// Closes and removes the file if this capture created it (it never started).
    func discard() {
        if !closed {
            closed = true
            _ = Glibc.close(descriptor)
        }
        if created { unlink(path) }
    }

    deinit {
        if !closed { _ = Glibc.close(descriptor) }
    }
}

/// The capture file could not be opened or written.
struct CaptureWriterError: Error, CustomStringConvertible {
    var path: String
    var reason: String

    init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    init(path: String, errno code: Int32) {
        self.init(path: path, reason: errorText(code))
    }

    var description: String { "cannot write the capture to \(path): \(reason)" }
}
