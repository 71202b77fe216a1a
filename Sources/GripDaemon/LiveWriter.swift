import Glibc
import GripProtocol
import GripStream

/// The consumer thread's side of the live stream: turns pipeline outputs into SAMPLES and event lines and writes
/// them to the watchers ``LiveWatchers`` publishes (docs/protocol.md, WATCH `pace`).
///
/// - Immediate watchers get each batch's samples at the end of the batch (one notification's, or a paced burst's).
/// - Batched watchers get one SAMPLES line at most every 40 ms, or one per paced burst (the radio then hands
///   notifications over every 40 ms already), plus one right before every event so that the samples before an event
///   arrive before it.
///
/// Owned by the consumer thread; nothing here blocks (``ClientOutput`` writes without waiting).
struct LiveWriter {
    /// Batched SAMPLES lines are sent at most this often (25 Hz), plus once before each event.
    static let samplesIntervalMicros: Int64 = 40_000

    let watchers: LiveWatchers
    private var batched: [ClientOutput] = []
    private var immediate: [ClientOutput] = []
    private var knownGeneration = 0
    private var pendingMicros: [Int64] = []
    private var pendingKilograms: [Float] = []
    /// How many of the pending samples immediate watchers already have.
    private var immediateSent = 0
    private var lastFlushMicros = Int64.min / 2
    /// The SAMPLES line being sent, kept from one line to the next (no allocation per line).
    private var line: [UInt8] = []

    init(watchers: LiveWatchers) {
        self.watchers = watchers
        pendingMicros.reserveCapacity(4096)
        pendingKilograms.reserveCapacity(4096)
    }

    /// Whether anyone watches, as of the last ``refresh()``.
    var isWatched: Bool { !batched.isEmpty || !immediate.isEmpty }

    /// Before each batch: takes the socket thread's latest lists if they changed.
    /// - Returns: whether anyone watches (else outputs need not be passed in).
    mutating func refresh() -> Bool {
        let generation = watchers.currentGeneration
        if generation != knownGeneration {
            knownGeneration = generation
            (batched, immediate) = watchers.watchers()
            if !isWatched { discardPending() }
        }
        return isWatched
    }

    /// One pipeline output, in stream order.
    mutating func add(_ output: StreamOutput) {
        if case .sample(let micros, let kilograms) = output {
            pendingMicros.append(micros)
            pendingKilograms.append(kilograms)
            return
        }
        flushSamples(nowMicros: Self.nowMicros())
        if let line = ProtocolMessage.event(output) { broadcast(line) }
    }

    /// After each batch: the samples that are due.
    /// - Parameter perBurst: the radio hands notifications over in 40 ms bursts: each burst is one batched line.
    mutating func endBatch(perBurst: Bool) {
        let nowMicros = Self.nowMicros()
        flushImmediate()
        if !pendingMicros.isEmpty && (perBurst || nowMicros >= lastFlushMicros + Self.samplesIntervalMicros) {
            flushSamples(nowMicros: nowMicros)
        }
    }

    /// How long the consumer may sleep before batched samples are due (nil: nothing waits).
    func microsUntilFlush() -> Int64? {
        guard !pendingMicros.isEmpty, !batched.isEmpty else { return nil }
        return max(0, lastFlushMicros + Self.samplesIntervalMicros - Self.nowMicros())
    }

    /// End of stream: everything pending goes out.
    mutating func finish() {
        flushSamples(nowMicros: Self.nowMicros())
    }

    // MARK: Writing

    /// CLOCK_MONOTONIC in microseconds (a vDSO call, no system call).
    private static func nowMicros() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1_000
    }

    private mutating func discardPending() {
        pendingMicros.removeAll(keepingCapacity: true)
        pendingKilograms.removeAll(keepingCapacity: true)
        immediateSent = 0
    }

    /// Sends immediate watchers the samples they have not had.
    private mutating func flushImmediate() {
        defer { immediateSent = pendingMicros.count }
        guard immediateSent < pendingMicros.count, !immediate.isEmpty else { return }
        let count = ProtocolMessage.writeSamples(
            micros: pendingMicros[immediateSent...], kilograms: pendingKilograms[immediateSent...], into: &line)
        send(lineOf: count, to: immediate, pace: .immediate)
    }

    /// Sends batched watchers every pending sample in one SAMPLES line (and immediate ones their rest first).
    private mutating func flushSamples(nowMicros: Int64) {
        flushImmediate()
        guard !pendingMicros.isEmpty else { return }
        if !batched.isEmpty {
            let count = ProtocolMessage.writeSamples(
                micros: pendingMicros[...], kilograms: pendingKilograms[...], into: &line)
            send(lineOf: count, to: batched, pace: .batched)
        }
        discardPending()
        lastFlushMicros = nowMicros
    }

    private func broadcast(_ line: String) {
        var line = line
        line.withUTF8 { bytes in
            send(bytes, to: batched, pace: .batched)
            send(bytes, to: immediate, pace: .immediate)
        }
    }

    /// Sends the first `count` bytes of `line`.
    private func send(lineOf count: Int, to outputs: [ClientOutput], pace: WatchPace) {
        line.withUnsafeBufferPointer { send(UnsafeBufferPointer(rebasing: $0[..<count]), to: outputs, pace: pace) }
    }

    private func send(_ bytes: UnsafeBufferPointer<UInt8>, to outputs: [ClientOutput], pace: WatchPace) {
        for output in outputs {
            switch output.send(bytes: bytes, backlogLimit: watchers.backlogLimit, ifWatching: pace) {
            case .caughtUp, .notWatching: break
            // Behind: the socket thread polls for POLLOUT and checks the budget; failed: it drops the client.
            case .behind, .failed: watchers.signalTrouble()
            }
        }
    }
}
