/// Where the daemon listens and how much one request may say: shared by griptrackd, its clients and the fuzzer.
package enum DaemonSocket {
    /// The Unix socket systemd's unit gives griptrackd (`RuntimeDirectory=griptrack`).
    package static let defaultPath = "/run/griptrack/griptrack.sock"
    /// The longest request line, in bytes: longer ones get ERROR and the connection is closed.
    package static let requestLimit = 4096
}
