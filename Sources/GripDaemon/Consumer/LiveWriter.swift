import Glibc
import GripProtocol
import GripStream

/// The consumer thread's side of the live stream: turns pipeline outputs into SAMPLES and event lines and writes
/// them to the watchers ``LiveWatchers`` publishes (docs/protocol.md, WATCH `pace`).
///
/// - Immediate watchers get each batch's samples at the end of the batch (one notification's, or a paced burst's).
/// - Batched watchers get one SAMPLES line at most every 40 ms, or one per paced burst (the radio then hands
///   notifications over every 40 ms already); slow watchers one at most every 500 ms.
/// - Every watcher gets the samples before an event in a line right before it, so they arrive in stream order.
///
/// The pending samples are kept until every pace that has watchers has sent them. Owned by the consumer thread;
/// nothing here blocks (``ClientOutput`` writes without waiting).
struct LiveWriter {
    let watchers: LiveWatchers
    private var immediate = PacedWatchers(pace: .immediate)
    private var batched = PacedWatchers(pace: .batched)
    private var slow = PacedWatchers(pace: .slow)
    private var knownGeneration = 0
    private var pendingMicros: [Int64] = []
    private var pendingKilograms: [Float] = []
    /// The SAMPLES line being sent, kept from one line to the next (no allocation per line).
    private var line: [UInt8] = []

    /// The watchers at one pace, and how far through the pending samples they are.
    private struct PacedWatchers {
        let pace: WatchPace
        var outputs: [ClientOutput] = []
        /// How many of the pending samples these watchers already have.
        var sent = 0
        var lastFlushMicros = Int64.min / 2

        init(pace: WatchPace) { self.pace = pace }

        /// Whether a line is due now (the immediate pace: always; a paced burst: for batched watchers).
        func isDue(nowMicros: Int64, perBurst: Bool) -> Bool {
            guard let interval = pace.samplesIntervalMicros else { return true }
            return (perBurst && pace == .batched) || nowMicros >= lastFlushMicros + interval
        }

        /// Takes a new list; watchers who joined a pace nobody watched start at the newest sample.
        mutating func replace(with newOutputs: [ClientOutput], pendingCount: Int) {
            if outputs.isEmpty { sent = pendingCount }
            outputs = newOutputs
        }
    }

    init(watchers: LiveWatchers) {
        self.watchers = watchers
        pendingMicros.reserveCapacity(4096)
        pendingKilograms.reserveCapacity(4096)
    }

    /// Whether anyone watches, as of the last ``refresh()``.
    var isWatched: Bool { !batched.outputs.isEmpty || !immediate.outputs.isEmpty || !slow.outputs.isEmpty }

    /// Before each batch: takes the socket thread's latest lists if they changed.
    /// - Returns: whether anyone watches (else outputs need not be passed in).
    mutating func refresh() -> Bool {
        let generation = watchers.currentGeneration
        if generation != knownGeneration {
            knownGeneration = generation
            let lists = watchers.watchers()
            immediate.replace(with: lists.immediate, pendingCount: pendingMicros.count)
            batched.replace(with: lists.batched, pendingCount: pendingMicros.count)
            slow.replace(with: lists.slow, pendingCount: pendingMicros.count)
            if !isWatched { discardSent() }
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
        flushAll(nowMicros: Self.nowMicros())
        if let line = ProtocolMessage.event(output) { broadcast(line) }
    }

    /// After each batch: the samples that are due.
    /// - Parameter perBurst: the radio hands notifications over in 40 ms bursts: each burst is one batched line.
    mutating func endBatch(perBurst: Bool) {
        let nowMicros = Self.nowMicros()
        if immediate.isDue(nowMicros: nowMicros, perBurst: perBurst) { flush(\.immediate, nowMicros: nowMicros) }
        if batched.isDue(nowMicros: nowMicros, perBurst: perBurst) { flush(\.batched, nowMicros: nowMicros) }
        if slow.isDue(nowMicros: nowMicros, perBurst: perBurst) { flush(\.slow, nowMicros: nowMicros) }
        discardSent()
    }

    /// How long the consumer may sleep before a paced line is due (nil: nothing waits).
    func microsUntilFlush() -> Int64? {
        func due(_ paced: PacedWatchers) -> Int64? {
            guard !paced.outputs.isEmpty, paced.sent < pendingMicros.count,
                let interval = paced.pace.samplesIntervalMicros
            else { return nil }
            return paced.lastFlushMicros + interval
        }
        // No array of the two: this runs before every consumer wait, and the hot path does not allocate.
        let earliest: Int64?
        switch (due(batched), due(slow)) {
        case (let batchedDue?, let slowDue?): earliest = min(batchedDue, slowDue)
        case (let batchedDue?, nil): earliest = batchedDue
        case (nil, let slowDue?): earliest = slowDue
        case (nil, nil): earliest = nil
        }
        return earliest.map { max(0, $0 - Self.nowMicros()) }
    }

    /// End of stream: everything pending goes out.
    mutating func finish() {
        flushAll(nowMicros: Self.nowMicros())
    }

    // MARK: Writing

    /// CLOCK_MONOTONIC in microseconds (a vDSO call, no system call).
    private static func nowMicros() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1_000
    }

    /// Every pace gets what it has not had (before an event, and at the end).
    private mutating func flushAll(nowMicros: Int64) {
        flush(\.immediate, nowMicros: nowMicros)
        flush(\.batched, nowMicros: nowMicros)
        flush(\.slow, nowMicros: nowMicros)
        discardSent()
    }

    /// Sends one pace's watchers the pending samples they have not had, in one SAMPLES line.
    private mutating func flush(_ pace: WritableKeyPath<LiveWriter, PacedWatchers>, nowMicros: Int64) {
        let paced = self[keyPath: pace]
        guard paced.sent < pendingMicros.count else { return }
        if !paced.outputs.isEmpty {
            let count = ProtocolMessage.writeSamples(
                micros: pendingMicros[paced.sent...], kilograms: pendingKilograms[paced.sent...], into: &line)
            line.withUnsafeBufferPointer {
                send(UnsafeBufferPointer(rebasing: $0[..<count]), to: paced.outputs, pace: paced.pace)
            }
            self[keyPath: pace].lastFlushMicros = nowMicros
        }
        self[keyPath: pace].sent = pendingMicros.count
    }

    /// Drops the pending samples every pace with watchers has sent (in place: the arrays keep their capacity).
    private mutating func discardSent() {
        let count = pendingMicros.count
        func done(_ paced: PacedWatchers) -> Int { paced.outputs.isEmpty ? count : paced.sent }
        let sent = min(done(immediate), done(batched), done(slow))
        guard sent > 0 else { return }
        pendingMicros.removeFirst(sent)
        pendingKilograms.removeFirst(sent)
        immediate.sent = max(0, immediate.sent - sent)
        batched.sent = max(0, batched.sent - sent)
        slow.sent = max(0, slow.sent - sent)
    }

    private func broadcast(_ line: String) {
        var line = line
        line.withUTF8 { bytes in
            send(bytes, to: batched.outputs, pace: .batched)
            send(bytes, to: immediate.outputs, pace: .immediate)
            send(bytes, to: slow.outputs, pace: .slow)
        }
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
