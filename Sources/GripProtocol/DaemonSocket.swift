/// Where the daemon listens and how much one request may say: shared by griptrackd, its clients and the fuzzer.
public enum DaemonSocket {
    /// The Unix socket systemd's unit gives griptrackd (`RuntimeDirectory=griptrack`).
    public static let defaultPath = "/run/griptrack/griptrack.sock"
    /// The longest request line, in bytes: longer ones get ERROR and the connection is closed.
    public static let requestLimit = 4096
}
