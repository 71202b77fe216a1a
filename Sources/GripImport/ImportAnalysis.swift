import GripAnalysis

/// griptrack's own analysis of an imported test, computed by the same segmenter and metrics as a live recording.
public struct ImportAnalysis: Sendable, Equatable {
    /// The whole file as one recording, with the efforts the segmenter found in it.
    public var recording: Recording
    /// RFD 20–80 % over the whole series (``EffortMetrics/rfd2080(of:peakKg:)``), the way the app computes its
    /// `rfd2080`: comparable with the app's figure even when no effort was cut.
    public var wholeSeriesRFD2080: Double?
    /// Samples the segmenter skipped (it skips none of a well-formed import; kept so a change would show).
    public var rejectedSamples: Int
}

extension TindeqExport {
    /// Runs the samples through ``EffortSegmenter`` as one explicit recording (it starts at the first sample and ends
    /// at the last), exactly as `griptrack record` cuts a live stream.
    ///
    /// - Parameter settings: The segmenter's settings (the same defaults as a replay).
    /// - Returns: The recording with its efforts, and the whole series' RFD 20–80 %.
    public func analyse(settings: SegmenterSettings = .init()) -> ImportAnalysis {
        var segmenter = EffortSegmenter(settings: settings)
        var recording: Recording? = nil
        let emit: (SegmentEvent) -> Void = { event in
            if case .recordingEnded(let ended) = event { recording = ended }
        }
        if let first = samples.first {
            segmenter.beginRecording(atMicros: first.micros, emit: emit)
        }
        for sample in samples {
            segmenter.ingest(micros: sample.micros, kilograms: sample.kilograms, emit: emit)
        }
        segmenter.endOfStream(emit: emit)
        let start = samples.first?.micros ?? 0
        return ImportAnalysis(
            recording: recording
                ?? Recording(startMicros: start, endMicros: samples.last?.micros ?? start, efforts: [], falseStartsDropped: 0),
            wholeSeriesRFD2080: EffortMetrics.rfd2080(of: samples), rejectedSamples: segmenter.rejectedSamples)
    }
}
