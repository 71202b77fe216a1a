/// Matches the reps a protocol planned against the efforts that were pulled (`docs/protocols.md`, "Planned against
/// performed"). Pure.
///
/// Timing starts at the first pull (the first effort is the first planned rep's start), and re-anchors on every
/// matched rep, so a set that drifts by a few tenths a rep still matches rep for rep. A planned rep is matched to
/// the next unused effort that starts within ``tolerance(for:)`` of its expected start, else it is missed; a
/// matched rep that ends more than ``timingToleranceMicros`` before its planned work time is short.
public enum RepMatcher {
    /// How early a rep may end and still count as held, and the least start tolerance: 1 s, the timing deviation
    /// Augste et al. (2022) tolerate before calling failure in an intermittent test.
    public static let timingToleranceMicros: Int64 = 1_000_000
    /// The most a start may be off, however long the rest.
    public static let maximumStartToleranceMicros: Int64 = 10_000_000

    /// How far from its expected start a rep may begin: half the rest before it, between 1 s and 10 s.
    public static func tolerance(for training: TrainingProtocol) -> Int64 {
        min(max(training.restMicros / 2, timingToleranceMicros), maximumStartToleranceMicros)
    }

    /// Every planned rep's outcome, in plan order.
    ///
    /// - Parameters:
    ///   - training: The protocol.
    ///   - performed: The efforts, in time order.
    ///   - trace: The recording's samples (for time in band); may be empty.
    ///   - maxKg: The athlete's max for this hand and grip (the band is a percentage of it); nil leaves time in band
    ///     out.
    ///   - firstHand: Who starts.
    public static func match(
        _ training: TrainingProtocol, performed: [PerformedRep], trace: [ForceSample], maxKg: Double?,
        firstHand: PlannedRep.Side = .right
    ) -> [RepOutcome] {
        let plan = training.plan(firstHand: firstHand)
        let tolerance = tolerance(for: training)
        let bandKg = training.targetPercent.flatMap { band in
            maxKg.map { ($0 * band.lowerBound / 100)...($0 * band.upperBound / 100) }
        }
        var outcomes: [RepOutcome] = []
        var next = 0  // the first effort not yet used
        // The last match: its planned start and the effort's real start.
        var anchor: (planned: Int64, actual: Int64)? = performed.first.map { (0, $0.startMicros) }
        for rep in plan {
            guard let (plannedAnchor, actualAnchor) = anchor else {
                outcomes.append(RepOutcome(planned: rep, status: .missed))
                continue
            }
            let expected = actualAnchor + (rep.startMicros - plannedAnchor)
            // Efforts that began well before this rep's window belong to no rep (an extra pull): skip them.
            while next < performed.count, performed[next].startMicros < expected - tolerance { next += 1 }
            guard next < performed.count, performed[next].startMicros <= expected + tolerance else {
                outcomes.append(RepOutcome(planned: rep, status: .missed))
                continue
            }
            let effort = performed[next]
            let held = effort.endMicros - effort.startMicros
            let short = rep.workMicros.map { held < $0 - timingToleranceMicros } ?? false
            let span = rep.workMicros ?? held
            let inBand = bandKg.flatMap { fractionInBand(trace, from: effort.startMicros, micros: span, band: $0) }
            outcomes.append(RepOutcome(
                planned: rep, status: short ? .short : .done, performedIndex: next, heldMicros: held,
                inBandFraction: inBand))
            anchor = (rep.startMicros, effort.startMicros)
            next += 1
        }
        return outcomes
    }

    /// The fraction of `[start, start + micros]` with force inside `band`, each sample's force holding until the next
    /// sample; time past the trace's end counts as outside. Nil for an empty span or trace.
    public static func fractionInBand(
        _ trace: [ForceSample], from start: Int64, micros: Int64, band: ClosedRange<Double>
    ) -> Double? {
        guard micros > 0, !trace.isEmpty else { return nil }
        let end = start + micros
        var inside: Int64 = 0
        for index in trace.indices {
            let from = max(trace[index].micros, start)
            let to = min(index + 1 < trace.count ? trace[index + 1].micros : trace[index].micros, end)
            guard to > from else { continue }
            if band.contains(Double(trace[index].kilograms)) { inside += to - from }
        }
        return Double(inside) / Double(micros)
    }
}

extension RepOutcome {
    init(planned: PlannedRep, status: Status) {
        self.init(planned: planned, status: status, performedIndex: nil, heldMicros: nil, inBandFraction: nil)
    }
}
