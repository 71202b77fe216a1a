import GripWire

/// The consumer loop: the one that griptrackd (radio or `--replay`), `griptrack record --replay` and
/// `griptrack replay` run (docs/design.md, "Data flow"). It waits on the ring, pops batches, runs each entry
/// through the processor (decode → device clock → segmenter), hands every output to the sink, counts what the
/// producer dropped, and returns after the batch holding `.endOfStream`.
public enum StreamConsumer {
    /// Runs the loop until the end of the stream; `processor` holds the final counters and clock after.
    ///
    /// One copy per profile, and this is the one list of them: the profile is chosen at run time, so the generic
    /// body asked the runtime for `ForceStreamProcessor<Profile>`'s metadata, a hash-table lookup, for every ring
    /// entry (Benchmarks/README.md, "Live path: instructions per wake-up"). The copies are partial: the sink stays
    /// generic (its type is the caller's, unknown here), so its calls go through its witness table, with no
    /// metadata lookup either. The generic body stays, and serves a profile not listed here.
    /// - Important: HOT PATH for notifications: no allocation, lock, syscall or log (the sink keeps the same rule).
    @_specialize(exported: false, kind: partial, where Profile == TindeqProgressor)
    @_specialize(exported: false, kind: partial, where Profile == PitchSixForceBoard)
    @_specialize(exported: false, kind: partial, where Profile == Entralpi)
    @_specialize(exported: false, kind: partial, where Profile == WeightScale)
    @_specialize(exported: false, kind: partial, where Profile == WeihengWHC06)
    @_specialize(exported: false, kind: partial, where Profile == FrezDyno)
    public static func run<Profile: DeviceProfile, Sink: StreamSink>(
        ring: NotificationRing, processor: inout ForceStreamProcessor<Profile>, sink: inout Sink
    ) {
        var knownDrops = 0
        var latestHostMicros = Int64.min
        var finished = false
        while !finished {
            ring.waitForData(timeoutMicros: sink.willWait())
            sink.didWake()
            // SAFETY: `entry` (and its `value` view into the slot) is only used inside this closure, while the ring
            // keeps the slot for the consumer.
            _ = unsafe ring.popBatch(max: 256) { entry in
                if unsafe entry.kind == .endOfStream { finished = true }
                let hostMicros = unsafe entry.hostMicros
                latestHostMicros = hostMicros
                unsafe processor.process(
                    kind: entry.kind, handle: entry.handle, hostMicros: hostMicros, value: entry.value
                ) { output in sink.consume(output, hostMicros: hostMicros) }
            }
            let drops = ring.dropped
            if drops != knownDrops {
                processor.countDropped(drops - knownDrops)
                knownDrops = drops
            }
            sink.endBatch(
                StreamBatch(ended: finished, latestHostMicros: latestHostMicros, counters: processor.counters),
                processor: &processor)
        }
    }
}
