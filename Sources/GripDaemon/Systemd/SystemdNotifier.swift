import Glibc
import Logging
import ServiceLifecycle

/// sd_notify(3) without libsystemd: datagrams to `$NOTIFY_SOCKET` saying READY=1 (the socket listens before the
/// group starts), STATUS=…, WATCHDOG=1 every half `$WATCHDOG_USEC` while no worker thread is stuck
/// (``ThreadLiveness``), and STOPPING=1 on shutdown.
/// Everything is a no-op when `$NOTIFY_SOCKET` is unset (not started by systemd).
package struct SystemdNotifier: Service, CustomStringConvertible {
    /// Where notifications go, or nil when not under systemd.
    package let socketPath: String?
    /// How often to send WATCHDOG=1, or nil when systemd does not watch this process.
    package let watchdogInterval: Duration?
    /// The STATUS= text sent with READY=1.
    package let readyStatus: String
    /// WATCHDOG=1 is sent only while none of these threads is stuck; nil confirms unconditionally.
    package let liveness: ThreadLiveness?
    let logger: Logger

    package var description: String { "SystemdNotifier" }

    /// Reads `NOTIFY_SOCKET`, `WATCHDOG_USEC` and `WATCHDOG_PID` from `environment`.
    /// - Parameters:
    ///   - environment: the process environment (tests pass their own).
    ///   - readyStatus: the human status line sent with READY=1.
    ///   - liveness: the worker threads to check before each WATCHDOG=1.
    ///   - logger: where failures to notify are logged.
    package init(
        environment: [String: String], readyStatus: String, liveness: ThreadLiveness? = nil, logger: Logger
    ) {
        socketPath = environment["NOTIFY_SOCKET"].flatMap { $0.isEmpty ? nil : $0 }
        let pidMatches = environment["WATCHDOG_PID"].map { Int32($0) == getpid() } ?? true
        if pidMatches, let text = environment["WATCHDOG_USEC"], let micros = Int64(text), micros > 0 {
            watchdogInterval = .microseconds(micros / 2)
        } else {
            watchdogInterval = nil
        }
        self.readyStatus = readyStatus
        self.liveness = liveness
        self.logger = logger
    }

    package func run() async throws {
        notify("READY=1\nSTATUS=\(readyStatus)")
        if let interval = watchdogInterval {
            try? await cancelWhenGracefulShutdown {
                var reported: ThreadLiveness.Worker?
                while !Task.isCancelled {
                    try await Task.sleep(for: interval)
                    if let stuck = liveness?.stuck() {
                        // No WATCHDOG=1: systemd restarts the daemon once WatchdogSec passes without one.
                        if reported != stuck.worker {
                            logger.critical(
                                "A thread is stuck; withholding the watchdog so systemd restarts griptrackd",
                                metadata: ["thread": "\(stuck.worker.rawValue)", "thread.busy": "\(stuck.busyFor)"])
                            notify("STATUS=Stuck: the \(stuck.worker.rawValue) thread has not returned for \(stuck.busyFor)")
                            reported = stuck.worker
                        }
                        continue
                    }
                    reported = nil
                    notify("WATCHDOG=1")
                }
            }
        } else {
            try? await gracefulShutdown()
        }
        notify("STOPPING=1\nSTATUS=Shutting down")
    }

    /// Sends one notification; returns false (and logs) when it could not be sent, true when sent or not under systemd.
    @discardableResult
    package func notify(_ state: String) -> Bool {
        guard let socketPath else { return true }
        guard let address = UnixAddress(path: socketPath) else {
            logger.warning("Invalid NOTIFY_SOCKET", metadata: ["notify.socket": "\(socketPath)"])
            return false
        }
        let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        let bytes = Array(state.utf8)
        let sent = address.withSockaddr { pointer, length in
            bytes.withUnsafeBytes { sendto(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL), pointer, length) }
        }
        if sent < 0 {
            logger.warning("sd_notify failed", metadata: ["notify.socket": "\(socketPath)", "error.errno": "\(errno)"])
            return false
        }
        return true
    }
}
