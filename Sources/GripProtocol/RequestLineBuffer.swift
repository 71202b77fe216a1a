/// A client's unread input: bytes as `recv` returns them in, complete request lines out.
///
/// Lines end in "\n" (a "\r" before it is dropped). A line longer than `limit` bytes, or more than `limit` bytes
/// without a newline, is ``Line/oversized``: the daemon answers ERROR and closes the connection (docs/protocol.md).
package struct RequestLineBuffer {
    /// What ``nextLine()`` found.
    package enum Line: Equatable, Sendable {
        /// A complete line, without its "\r\n" or "\n".
        case line([UInt8])
        /// A line longer than the limit (the connection is to be closed).
        case oversized
    }

    /// The longest line accepted, in bytes.
    package let limit: Int
    /// Received bytes not yet returned as a line.
    package private(set) var pending: [UInt8] = []

    package init(limit: Int = DaemonSocket.requestLimit) {
        self.limit = limit
    }

    /// Adds received bytes.
    package mutating func append(_ bytes: some Sequence<UInt8>) {
        pending.append(contentsOf: bytes)
    }

    /// Takes the next complete line off the buffer.
    ///
    /// - Returns: The next line, ``Line/oversized`` when the next line (finished or not) is over the limit, or
    ///   `nil` when more bytes are needed.
    package mutating func nextLine() -> Line? {
        guard let newline = pending.firstIndex(of: UInt8(ascii: "\n")) else {
            return pending.count > limit ? .oversized : nil
        }
        var line = Array(pending[..<newline])
        pending.removeSubrange(...newline)
        if line.last == UInt8(ascii: "\r") { line.removeLast() }
        return line.count > limit ? .oversized : .line(line)
    }

    /// Drops everything received (after an oversized request: nothing more is read).
    package mutating func discardAll() {
        pending.removeAll()
    }
}
