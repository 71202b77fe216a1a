import Glibc
import GripSystem
import Logging
import ServiceLifecycle

/// Ends griptrackd gracefully on SIGTERM or SIGINT: a service that returns when one arrives, which shuts the group
/// down (every service is `.gracefullyShutdownGroup` on return).
///
/// Not swift-service-lifecycle's `gracefulShutdownSignals`: those are Dispatch signal sources, which set the signal
/// to ignored at once but register on Dispatch's manager thread later, so a SIGTERM in between (a `systemctl stop`
/// right after start) was ignored and lost, and systemd waited out its stop timeout. `InterruptSignal` catches it
/// from the moment `Daemon.init` creates this service.
final class SignalShutdown: Service, CustomStringConvertible {
    private let interrupt = InterruptSignal(signals: [SIGTERM, SIGINT])
    private let stop: WakePipe
    private let logger: Logger

    var description: String { "SignalShutdown" }

    init(logger: Logger) throws(DaemonError) {
        stop = try WakePipe(daemonPurpose: "signal shutdown")
        self.logger = logger
    }

    deinit { stop.close() }

    /// Waits (on its own thread, in `poll(2)`, no timeout) for a signal or the group's shutdown.
    func run() async throws {
        let (interrupt, stop, logger) = (interrupt, stop, logger)
        await withGracefulShutdownHandler {
            await NamedThread.run(name: "gt-signals") {
                var descriptors = [
                    pollfd(fd: interrupt.readDescriptor, events: Int16(POLLIN), revents: 0),
                    pollfd(fd: stop.readDescriptor, events: Int16(POLLIN), revents: 0),
                ]
                _ = SystemCall.poll(&descriptors, timeoutMilliseconds: -1)
                if interrupt.drain() > 0 { logger.info("Signal received; shutting down") }
            }
        } onGracefulShutdown: {
            stop.signal()
        }
    }
}
