import Glibc

/// Turns signals (by default SIGINT, SIGTERM and SIGHUP) into a readable pipe, so a loop can poll for them next to its
/// other descriptors and stop cleanly: `griptrack record` sends STOP, waits for the answer and restores the terminal;
/// griptrackd shuts its services down gracefully (`SignalShutdown`).
///
/// A `sigaction` handler writes one byte per signal (the self-pipe trick), installed before `init` returns: from
/// then on no signal is lost, whichever thread the kernel delivers it to. Dispatch signal sources are not used
/// here because they register asynchronously, on Dispatch's manager thread: a signal sent right after the prompt
/// ("Ctrl-C stops it.") could arrive while the signal was already ignored but not yet routed to the source, and
/// was dropped (about 1 run in 60 of the Ctrl-C test on a loaded 2-core machine, which then waited forever).
///
/// One instance at a time per process (the handler writes to one pipe); the owner creates it before it starts
/// anything that could be interrupted, and its `deinit` restores the previous actions before closing the pipe.
// SAFETY: @unchecked Sendable so the owner can hand it to the thread that polls it; after init only that one
// thread calls `drain()`, and the descriptors and saved actions are immutable until deinit.
package final class InterruptSignal: @unchecked Sendable {
    /// Readable once a signal arrived.
    package var readDescriptor: Int32 { pipe.readDescriptor }
    private let pipe: WakePipe
    private let previousActions: [(signal: Int32, action: sigaction)]

    /// The signals caught unless `init(signals:)` is given others.
    package static let signals: [Int32] = [SIGINT, SIGTERM, SIGHUP]

    /// Installs the handler for `signals`; from the moment this returns, each of them is a byte in the pipe.
    package init(signals: [Int32] = InterruptSignal.signals) {
        do {
            pipe = try WakePipe(purpose: "interrupt signal")
        } catch {
            preconditionFailure("\(error)")
        }
        precondition(interruptPipe == -1, "InterruptSignal: only one instance at a time")
        interruptPipe = pipe.writeDescriptor
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in
            // Async-signal-safe: one write(2), errno preserved for the interrupted code. A full pipe (64 KiB of
            // unread signals) drops the byte, which loses nothing: the reader already has one to see.
            let savedErrno = errno
            var byte: UInt8 = 1
            _ = write(interruptPipe, &byte, 1)
            errno = savedErrno
        }
        sigemptyset(&action.sa_mask)
        // Restarted, not EINTR: the loops that poll the pipe see the byte; other blocking calls need not care.
        action.sa_flags = SA_RESTART
        previousActions = signals.map { number in
            var previous = sigaction()
            sigaction(number, &action, &previous)
            return (number, previous)
        }
    }

    /// Reads every pending byte; returns how many signals arrived since the last call.
    package func drain() -> Int {
        pipe.drain()
    }

    deinit {
        // The handler must not write to a descriptor number that is closed (and may be reused): restore first.
        for (number, action) in previousActions {
            var action = action
            sigaction(number, &action, nil)
        }
        interruptPipe = -1
        pipe.close()
    }
}

/// The write end of the live `InterruptSignal`'s pipe, for its signal handler (a C function pointer cannot
/// capture it).
// SAFETY: written only by InterruptSignal's init (before the handler is installed) and deinit (after it is
// removed), one instance at a time; the handler only reads it. An Int32 load cannot tear.
private nonisolated(unsafe) var interruptPipe: Int32 = -1
