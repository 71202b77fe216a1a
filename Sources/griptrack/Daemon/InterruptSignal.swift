import Dispatch
import Glibc

/// Turns SIGINT, SIGTERM and SIGHUP into a readable pipe, so the record loop can poll for Ctrl-C next to the
/// socket and stop cleanly (STOP, wait for the answer, restore the terminal) instead of being killed.
///
/// The signals are ignored at the process level (also by an in-process daemon, which is built with
/// `handlesSignals: false`) and delivered through Dispatch signal sources, which write one byte per signal.
// SAFETY: @unchecked Sendable so the command can install it before starting threads and hand it to the record
// loop's thread; after init only that one thread calls `drain()`, and the pipe ends and sources are immutable.
final class InterruptSignal: @unchecked Sendable {
    /// Readable once a signal arrived.
    let readDescriptor: Int32
    private let writeDescriptor: Int32
    private let sources: [any DispatchSourceSignal]

    init() {
        var descriptors: [Int32] = [-1, -1]
        if pipe(&descriptors) != 0 {
            preconditionFailure("pipe failed: errno \(errno)")
        }
        for descriptor in descriptors {
            _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
            _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        }
        readDescriptor = descriptors[0]
        writeDescriptor = descriptors[1]
        let write = descriptors[1]
        sources = [SIGINT, SIGTERM, SIGHUP].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                var byte: UInt8 = 1
                _ = Glibc.write(write, &byte, 1)
            }
            source.resume()
            return source
        }
    }

    /// Reads every pending byte; returns how many signals arrived since the last call.
    func drain() -> Int {
        var count = 0
        var buffer = [UInt8](repeating: 0, count: 16)
        while true {
            let read = Glibc.read(readDescriptor, &buffer, buffer.count)
            if read <= 0 { return count }
            count += read
        }
    }

    deinit {
        for source in sources { source.cancel() }
        close(readDescriptor)
        close(writeDescriptor)
    }
}
