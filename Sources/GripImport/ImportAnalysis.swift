import GripAnalysis

/// griptrack's own analysis of an imported test, computed by the same segmenter and metrics as a live recording.
package struct ImportAnalysis: Sendable, Equatable {
    /// The whole file as one recording, with the efforts the segmenter found in it.
    package var recording: Recording
    /// RFD 20–80 % over the whole series (``EffortMetrics/rfd2080(of:peakKg:)``), the way the app computes its
    /// `rfd2080`: comparable with the app's figure even when no effort was cut.
    package var wholeSeriesRFD2080: Double?
    /// Samples the segmenter skipped (it skips none of a well-formed import; kept so a change would show).
    package var rejectedSamples: Int
}

/// Cuts an imported series into efforts as it streams, exactly as `griptrack record` cuts a live stream: one explicit
/// recording from the first sample to the last, interrupted where the export says the link dropped, so an effort cut
/// open there stays open.
///
/// The whole series' RFD needs its maximum first: pass the samples through ``rfd`` again once all have been
/// ingested (``TindeqExport/analyse(settings:)`` does both for samples in memory).
package struct ImportAnalyser {
    private var segmenter: EffortSegmenter
    private var recording: Recording?
    private var first: ForceSample?
    private var last: ForceSample?
    private var maxKg: Float?

    /// - Parameter settings: The segmenter's settings (the same defaults as a replay).
    package init(settings: SegmenterSettings = .init()) {
        segmenter = EffortSegmenter(settings: settings)
    }

    /// Takes the next sample, in time order.
    package mutating func ingest(_ sample: ForceSample) {
        var ended: Recording? = nil
        let emit: (SegmentEvent) -> Void = { event in
            if case .recordingEnded(let recording) = event { ended = recording }
        }
        if first == nil {
            first = sample
            segmenter.beginRecording(atMicros: sample.micros, emit: emit)
        }
        segmenter.ingest(micros: sample.micros, kilograms: sample.kilograms, emit: emit)
        last = sample
        maxKg = max(maxKg ?? sample.kilograms, sample.kilograms)
        if let ended { recording = ended }
    }

    /// The stream was interrupted (the export lists a link drop here): an effort in progress ends open.
    package mutating func interruption() {
        guard last != nil else { return }
        segmenter.interruption { _ in }
    }

    /// Ends the stream and returns the recording; ``ImportAnalysis/wholeSeriesRFD2080`` is `nil` until set from
    /// a second pass through ``rfd``.
    package mutating func finish() -> ImportAnalysis {
        var ended: Recording? = nil
        segmenter.endOfStream { event in
            if case .recordingEnded(let recording) = event { ended = recording }
        }
        if let ended { recording = ended }
        let start = first?.micros ?? 0
        return ImportAnalysis(
            recording: recording
                ?? Recording(startMicros: start, endMicros: last?.micros ?? start, efforts: [], falseStartsDropped: 0),
            wholeSeriesRFD2080: nil, rejectedSamples: segmenter.rejectedSamples)
    }

    /// The whole series' RFD 20–80 %, to be fed every sample again once this analyser has seen them all.
    package var rfd: EffortMetrics.RFD2080Stream { EffortMetrics.RFD2080Stream(peakKg: maxKg ?? 0) }
}

/// Where an export says the stream was interrupted, walked in step with the samples: an interruption comes before
/// the first sample after a drop's time.
struct LinkDropCursor {
    private let drops: [Int64]
    private var next = 0

    init(_ drops: [Int64]) { self.drops = drops.sorted() }

    /// Whether the stream was interrupted before a sample at `micros` (each drop counts once).
    mutating func interrupts(before micros: Int64) -> Bool {
        var interrupted = false
        while next < drops.count, drops[next] < micros {
            interrupted = true
            next += 1
        }
        return interrupted
    }
}

extension TindeqExport {
    /// The settings for a second analysis of an endurance test in which the first found no effort although the
    /// app's own average says the whole test was a hold: a light hang held steady from the first sample looks like
    /// a pre-load at rest to the live rule (``SegmenterSettings/restEvidenceMicros``), which a live stream needs
    /// and an endurance export does not (it holds the test and nothing before it). `nil` when the first analysis
    /// stands.
    ///
    /// - Parameters:
    ///   - analysis: The first analysis, with `settings`.
    ///   - settings: The settings it used.
    package func steadyHoldSettings(after analysis: ImportAnalysis, settings: SegmenterSettings = .init()) -> SegmenterSettings? {
        guard test == .endurance, analysis.recording.efforts.isEmpty, let average = figures.averageKg,
            average >= Double(settings.baselinePriorKg + settings.onAboveBaseline)
        else { return nil }
        var steady = settings
        // Never rest evidence: the starting load stays an effort under way.
        steady.restEvidenceMicros = .max
        return steady
    }

    /// Runs ``samples`` through ``ImportAnalyser``: one explicit recording from the first sample to the last,
    /// interrupted at ``linkDrops`` (a second time with ``steadyHoldSettings(after:settings:)`` when those apply).
    ///
    /// - Parameter settings: The segmenter's settings (the same defaults as a replay).
    /// - Returns: The recording with its efforts, and the whole series' RFD 20–80 %.
    package func analyse(settings: SegmenterSettings = .init()) -> ImportAnalysis {
        let first = analyseOnce(settings: settings)
        guard let steady = steadyHoldSettings(after: first, settings: settings) else { return first }
        return analyseOnce(settings: steady)
    }

    private func analyseOnce(settings: SegmenterSettings) -> ImportAnalysis {
        var analyser = ImportAnalyser(settings: settings)
        var drops = LinkDropCursor(linkDrops)
        for sample in samples {
            if drops.interrupts(before: sample.micros) { analyser.interruption() }
            analyser.ingest(sample)
        }
        var analysis = analyser.finish()
        var rfd = analyser.rfd
        for sample in samples { rfd.ingest(sample) }
        analysis.wholeSeriesRFD2080 = rfd.value
        return analysis
    }
}
