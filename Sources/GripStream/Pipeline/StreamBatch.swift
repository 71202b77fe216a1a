/// What the consumer loop tells its sink at the end of each batch.
public struct StreamBatch: Sendable {
    /// The batch held the end-of-stream entry: the loop returns after this batch.
    public var ended: Bool
    /// Host time of the latest ring entry popped so far (this batch or an earlier one; `Int64.min` before any).
    public var latestHostMicros: Int64
    /// The processor's counters after the batch (drops included), read where the processor's type is known.
    public var counters: FrameCounters
}
