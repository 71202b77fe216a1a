import Glibc

/// `struct ucred` from `<sys/socket.h>` (SO_PEERCRED), which Swift's Glibc module leaves out without _GNU_SOURCE.
struct PeerCredentials {
    var pid: Int32 = 0
    var uid: UInt32 = 0
    var gid: UInt32 = 0
}
