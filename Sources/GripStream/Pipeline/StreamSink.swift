import GripWire

/// Where the one consumer loop (`StreamConsumer`) puts what it produces, and what it asks between batches: the
/// daemon's sink writes to watchers, feeds the recorder and publishes STATUS; a replay's builds its report.
///
/// The loop is generic over the sink, not handed an existential: each call below is a direct call through the
/// sink's witness table, with no box and no allocation.
public protocol StreamSink {
    /// The loop is about to wait for the ring: how long it may sleep before the sink needs it (µs), nil for as long
    /// as no entry comes.
    mutating func willWait() -> Int64?

    /// The loop woke (an entry, a wake-up request or the timeout) and is about to pop a batch.
    mutating func didWake()

    /// One output of the pipeline, in stream order, with the host time of the ring entry that produced it.
    /// - Important: HOT PATH: no allocation, lock, syscall or log.
    mutating func consume(_ output: StreamOutput, hostMicros: Int64)

    /// The batch popped after the last wake-up is processed, and the notifications the producer dropped meanwhile
    /// are counted. The sink may act on the processor here (a recorder's command); after a batch that ended the
    /// stream the loop returns.
    mutating func endBatch<Profile: DeviceProfile>(_ batch: StreamBatch, processor: inout ForceStreamProcessor<Profile>)
}

extension StreamSink {
    public mutating func willWait() -> Int64? { nil }
    public mutating func didWake() {}
    public mutating func endBatch<Profile: DeviceProfile>(
        _ batch: StreamBatch, processor: inout ForceStreamProcessor<Profile>
    ) {}
}
