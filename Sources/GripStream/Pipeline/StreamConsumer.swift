import GripWire

/// The consumer loop: the one that griptrackd (radio or `--replay`), `griptrack record --replay` and
/// `griptrack replay` run (docs/design.md, "Data flow"). It waits on the ring, pops batches, runs each entry
/// through the processor (decode → device clock → segmenter), hands every output to the sink, counts what the
/// producer dropped, and returns after the batch holding `.endOfStream`.
public enum StreamConsumer {
    /// Runs the loop until the end of the stream; `processor` holds the final counters and clock after.
    /// - Important: HOT PATH for notifications: no allocation, lock, syscall or log (the sink keeps the same rule).
    public static func run<Profile: DeviceProfile, Sink: StreamSink>(
        ring: NotificationRing, processor: inout ForceStreamProcessor<Profile>, sink: inout Sink
    ) {
        var batch = StreamBatch(ended: false, latestHostMicros: Int64.min, counters: FrameCounters())
        var knownDrops = 0
        while !batch.ended {
            ring.waitForData(timeoutMicros: sink.willWait())
            sink.didWake()
            processBatch(ring: ring, processor: &processor, knownDrops: &knownDrops, batch: &batch) {
                sink.consume($0, hostMicros: $1)
            }
            sink.endBatch(batch, processor: &processor)
        }
    }

    /// Pops one batch and runs it through the processor, then counts the notifications the producer dropped.
    ///
    /// One copy per profile, and this is the one list of them: the profile is chosen at run time, so the generic
    /// body asked the runtime for `ForceStreamProcessor<Profile>`'s metadata, a hash-table lookup, for every ring
    /// entry (Benchmarks/README.md, "Live path: instructions per wake-up"). Only the profile is generic here, so
    /// each copy is whole, down to the closures; the sink (whose type is the caller's, unknown here) is reached
    /// through `output`, which touches nothing of the profile's. The generic body stays, and serves a profile not
    /// listed here.
    // HOT PATH: no allocation, lock, syscall or log
    @_specialize(exported: false, where Profile == TindeqProgressor)
    @_specialize(exported: false, where Profile == PitchSixForceBoard)
    @_specialize(exported: false, where Profile == Entralpi)
    @_specialize(exported: false, where Profile == WeightScale)
    @_specialize(exported: false, where Profile == WeihengWHC06)
    @_specialize(exported: false, where Profile == FrezDyno)
    @_specialize(exported: false, where Profile == CTS500)
    @_specialize(exported: false, where Profile == Climbro)
    @_specialize(exported: false, where Profile == GriptoniteMotherboard)
    private static func processBatch<Profile: DeviceProfile>(
        ring: NotificationRing, processor: inout ForceStreamProcessor<Profile>, knownDrops: inout Int,
        batch: inout StreamBatch, output: (StreamOutput, _ hostMicros: Int64) -> Void
    ) {
        var ended = false
        var latestHostMicros = batch.latestHostMicros
        // SAFETY: `entry` (and its `value` view into the slot) is only used inside this closure, while the ring
        // keeps the slot for the consumer.
        _ = unsafe ring.popBatch(max: 256) { entry in
            if unsafe entry.kind == .endOfStream { ended = true }
            let hostMicros = unsafe entry.hostMicros
            latestHostMicros = hostMicros
            unsafe processor.process(
                kind: entry.kind, handle: entry.handle, hostMicros: hostMicros, value: entry.value
            ) { output($0, hostMicros) }
        }
        let drops = ring.dropped
        if drops != knownDrops {
            processor.countDropped(drops - knownDrops)
            knownDrops = drops
        }
        batch = StreamBatch(ended: ended, latestHostMicros: latestHostMicros, counters: processor.counters)
    }
}
