import Glibc

/// What kind of file a path names, asked with `stat(2)` before it is opened: a reader that opens a FIFO or a
/// character device blocks in `open` or `read` for ever (until a writer appears), so griptrack opens only regular
/// files for reading data.
package enum FileKind: Sendable, Equatable {
    case regular
    case directory
    /// A FIFO, socket, or block or character device.
    case special
    /// The path does not exist (or cannot be stat'ed).
    case missing

    /// The kind of `path`, following symbolic links.
    package init(path: String) {
        var status = stat()
        guard stat(path, &status) == 0 else {
            self = .missing
            return
        }
        switch status.st_mode & S_IFMT {
        case S_IFREG: self = .regular
        case S_IFDIR: self = .directory
        default: self = .special
        }
    }
}
