import Glibc

/// A system call that failed: what it was for and the errno it left.
package struct SystemCallError: Error, Equatable, CustomStringConvertible {
    /// What was being done, e.g. "create the stop pipe".
    package var action: String
    package var errno: Int32

    package init(action: String, errno: Int32) {
        self.action = action
        self.errno = errno
    }

    package var description: String { "could not \(action): \(String(cString: strerror(errno)))" }
}
